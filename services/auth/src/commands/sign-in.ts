import { auth, oauth } from "@canopy/protos";
import { passwordMatches, spendVerification } from "../domain/passwords";
import { looksLikeTotpCode, totpStep } from "../domain/totp";
import type { Deps } from "../deps";
import { recordedAddress } from "../domain/client-address";
import {
  lockedUntil,
  recordFailedAttempt,
  recordSignIn,
  resetFailedAttempts,
} from "../store/sign-in-attempts";
import * as twoFactor from "../store/two-factor";
import { findUserById, findUserByLogin, toUser, type UserRow } from "../store/users";
import { openSecret, recoveryCodeDigests } from "./two-factor";
import { reactivateAtSignIn } from "./user-state";

/** What the web sign-in does beyond the password grant, as GitLab's do. */
export interface SignInOptions {
  /** A deactivated user comes back (the web); the password grant refuses them. */
  reactivate?: boolean;
  /**
   * Record the sign-in with the browser's address (Devise's trackable, which runs when Warden
   * signs a user in on the web). GitLab's password grant only checks the password
   * (Gitlab::Auth.find_with_user_password): it records nothing but the reset failure count.
   */
  track?: { clientIp: string };
}

/** May this user complete a sign-in: active, or deactivated on the web (they come back). */
const mayComplete = (user: UserRow, options: SignInOptions) =>
  user.state === "active" || (options.reactivate === true && user.state === "deactivated");

/**
 * Why a user who gave the right password may not sign in (GitLab's User#inactive_message): waiting
 * for approval, or blocked (every other state that is not active).
 */
export const inactiveRefusal = (user: Pick<UserRow, "state">) =>
  user.state === "blocked_pending_approval"
    ? oauth.SignInRefusal.SIGN_IN_REFUSAL_PENDING_APPROVAL
    : oauth.SignInRefusal.SIGN_IN_REFUSAL_BLOCKED;

/**
 * Checks a username-or-email and password; used by the sign-in page and the password grant. Failed
 * attempts are counted per account; after CANOPY_SIGN_IN_MAX_ATTEMPTS the account is locked for
 * CANOPY_SIGN_IN_LOCK_MINUTES, during which even the right password is refused.
 *
 * Every answer costs one argon2 verification, made before anything about the account is decided:
 * otherwise an unknown or locked account answers sooner than a wrong password and tells which it is.
 *
 * For a user with two-factor authentication the right password is only half: the user comes back
 * (with `twoFactorEnabled`) but the sign-in is not recorded and the failure count is not reset until
 * verifySignInCode accepts a code, so the password cannot be used to buy more guesses at the code.
 */
export async function verifyPassword(
  deps: Deps,
  login: string,
  password: string,
  options: SignInOptions = {},
) {
  const user = login ? await findUserByLogin(deps.pool, login) : undefined;
  const matches =
    user?.password_hash && password
      ? await passwordMatches(user.password_hash, password)
      : await spendVerification(password);
  if (!user || !user.password_hash) return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID };
  const locked = await lockedUntil(deps.pool, user.id);
  if (locked) return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED, lockedUntil: locked };
  if (!matches) return failed(deps, user.id);
  if (!mayComplete(user, options)) return { refusal: inactiveRefusal(user) };
  // Reactivated only once the sign-in is complete: for two-factor users, at the code step.
  if (user.two_factor_enabled)
    return { user: toUser(user), refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED };
  return {
    user: await signedIn(deps, user, options),
    refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED,
  };
}

async function failed(deps: Deps, userId: number) {
  const { CANOPY_SIGN_IN_MAX_ATTEMPTS: max, CANOPY_SIGN_IN_LOCK_MINUTES: minutes } = deps.config;
  const until = await recordFailedAttempt(deps.pool, userId, max, minutes);
  return until
    ? { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED, lockedUntil: until }
    : { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID };
}

/** The password (and code) accepted: a deactivated user is active again, the sign-in recorded; the user. */
export async function signedIn(deps: Deps, user: UserRow, options: SignInOptions) {
  const current = user.state === "deactivated" ? ((await reactivateAtSignIn(deps, user.id)) ?? user) : user;
  if (!options.track) {
    await resetFailedAttempts(deps.pool, user.id);
    return toUser(current);
  }
  const recorded = await recordSignIn(deps.pool, user.id, recordedAddress(options.track.clientIp));
  return toUser(recorded ?? current);
}

const CodeRefusal = auth.SignInCodeRefusal;

/**
 * The second step, for the user whose password the gateway has just accepted (it keeps that user in
 * the half-signed-in session): a current TOTP code, once only, or an unused recovery code. Wrong
 * codes count towards the account lock like wrong passwords.
 */
export async function verifySignInCode(
  deps: Deps,
  { userId, code, clientIp }: auth.VerifySignInCodeRequest,
): Promise<auth.VerifySignInCodeResponse> {
  const user = userId ? await findUserById(deps.pool, userId) : undefined;
  if (!user || !user.two_factor_enabled) return { refusal: CodeRefusal.SIGN_IN_CODE_REFUSAL_INVALID };
  if (await lockedUntil(deps.pool, user.id)) return { refusal: CodeRefusal.SIGN_IN_CODE_REFUSAL_LOCKED };
  // Only the web asks for codes: a deactivated user comes back here too.
  if (!mayComplete(user, { reactivate: true }))
    return {
      refusal:
        user.state === "blocked_pending_approval"
          ? CodeRefusal.SIGN_IN_CODE_REFUSAL_PENDING_APPROVAL
          : CodeRefusal.SIGN_IN_CODE_REFUSAL_BLOCKED,
    };
  if (!(await codeAccepted(deps, user.id, code.trim()))) {
    const { CANOPY_SIGN_IN_MAX_ATTEMPTS: max, CANOPY_SIGN_IN_LOCK_MINUTES: minutes } = deps.config;
    const until = await recordFailedAttempt(deps.pool, user.id, max, minutes);
    return {
      refusal: until ? CodeRefusal.SIGN_IN_CODE_REFUSAL_LOCKED : CodeRefusal.SIGN_IN_CODE_REFUSAL_INVALID,
    };
  }
  // Only the web asks for codes: the sign-in is recorded.
  const signed = await signedIn(deps, user, { reactivate: true, track: { clientIp } });
  return { user: signed, refusal: CodeRefusal.SIGN_IN_CODE_REFUSAL_UNSPECIFIED };
}

async function codeAccepted(deps: Deps, userId: number, code: string): Promise<boolean> {
  const row = await twoFactor.findTwoFactor(deps.pool, userId);
  if (!row?.enabled_at || !code) return false;
  if (!looksLikeTotpCode(code))
    return twoFactor.spendRecoveryCode(deps.pool, userId, recoveryCodeDigests(deps, code));
  const lastStep = row.last_used_step === null ? null : Number(row.last_used_step);
  const step = totpStep(openSecret(deps, row), code, lastStep);
  return step !== undefined && (await twoFactor.spendStep(deps.pool, userId, step));
}
