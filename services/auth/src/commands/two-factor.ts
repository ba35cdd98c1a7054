import {
  badRequest,
  requireAdmin,
  requireSignedIn,
  forbidden,
  notFound,
  withTransaction,
  type Queryable,
} from "@canopy/kit";
import { auth, type common } from "@canopy/protos";
import { passwordMatches, spendVerification } from "../domain/passwords";
import { tokenDigest, tokenDigests } from "../domain/tokens";
import { newRecoveryCodes, newTotpSecret, normalizeCode, provisioningUri, totpStep } from "../domain/totp";
import type { Deps } from "../deps";
import { totpContext } from "../secrets";
import { recordFailedAttempt } from "../store/sign-in-attempts";
import * as twoFactor from "../store/two-factor";
import { findUserById, type UserRow } from "../store/users";
import { recordUserUpdated } from "./user-events";

const Refusal = auth.TwoFactorRefusal;

/**
 * TOTP two-factor authentication, as GitLab's profile page has it: a secret shown (QR code and text)
 * until a current code and the password confirm it; then ten recovery codes shown once; turned off
 * with the password (or by an administrator through the API).
 */
const sealSecret = (deps: Deps, userId: number, secret: string) =>
  deps.totpKeys.seal(secret, totpContext(userId));
export const openSecret = (deps: Deps, row: twoFactor.TwoFactorRow) =>
  deps.totpKeys.open(row.secret_encrypted, totpContext(row.user_id));

export const recoveryCodeDigest = (deps: Deps, code: string) =>
  tokenDigest(deps.tokenKey, normalizeCode(code));
/** The digests a stored recovery code may carry (see tokenDigests). */
export const recoveryCodeDigests = (deps: Deps, code: string) => tokenDigests(deps, normalizeCode(code));

async function signedInUser(deps: Deps, actor: common.Actor | undefined): Promise<UserRow> {
  const user = await findUserById(deps.pool, requireSignedIn(actor).userId);
  if (!user) throw notFound("User");
  return user;
}

export async function prepareTwoFactor(
  deps: Deps,
  actor: common.Actor | undefined,
): Promise<auth.PrepareTwoFactorResponse> {
  const user = await signedInUser(deps, actor);
  if (user.two_factor_enabled) return { enabled: true, secret: "", provisioningUri: "" };
  let existing = await twoFactor.findTwoFactor(deps.pool, user.id);
  // The flag is the truth: an enrolment it no longer shows (turned off through the API) starts anew.
  if (existing?.enabled_at) {
    await twoFactor.removeTwoFactor(deps.pool, user.id);
    existing = undefined;
  }
  const row =
    existing ??
    (await twoFactor.insertPendingSecret(deps.pool, user.id, sealSecret(deps, user.id, newTotpSecret())));
  const secret = openSecret(deps, row);
  const issuer = new URL(deps.config.CANOPY_EXTERNAL_URL).host;
  return { enabled: false, secret, provisioningUri: provisioningUri(issuer, user.email, secret) };
}

/** Checks the actor's own password; a wrong one counts towards the account lock, as at sign-in. */
async function passwordConfirms(deps: Deps, user: UserRow, password: string): Promise<boolean> {
  const ok = user.password_hash
    ? await passwordMatches(user.password_hash, password)
    : await spendVerification(password);
  if (!ok) {
    const { CANOPY_SIGN_IN_MAX_ATTEMPTS: max, CANOPY_SIGN_IN_LOCK_MINUTES: minutes } = deps.config;
    await recordFailedAttempt(deps.pool, user.id, max, minutes);
  }
  return ok;
}

/**
 * The gateway caches users with their authentications: this event keeps `two_factor_enabled` true
 * there. It is the one UserUpdated recorded without a snapshot change (consumers of snapshots just
 * upsert the same values again). Called after the flag's UPDATE, so the row read is this
 * transaction's, locked.
 */
async function flagChanged(tx: Queryable, user: UserRow, actor: common.Actor | undefined) {
  const committed = await findUserById(tx, user.id);
  if (committed) await recordUserUpdated(tx, committed, actor);
}

export async function enableTwoFactor(
  deps: Deps,
  actor: common.Actor | undefined,
  req: { code: string; password: string },
): Promise<auth.EnableTwoFactorResponse> {
  const user = await signedInUser(deps, actor);
  const pending = await twoFactor.findTwoFactor(deps.pool, user.id);
  if (user.two_factor_enabled)
    return { refusal: Refusal.TWO_FACTOR_REFUSAL_ALREADY_ENABLED, recoveryCodes: [] };
  if (!(await passwordConfirms(deps, user, req.password)))
    return { refusal: Refusal.TWO_FACTOR_REFUSAL_WRONG_PASSWORD, recoveryCodes: [] };
  const step = pending ? totpStep(openSecret(deps, pending), req.code.trim(), null) : undefined;
  if (step === undefined) return { refusal: Refusal.TWO_FACTOR_REFUSAL_INVALID_CODE, recoveryCodes: [] };
  const codes = newRecoveryCodes();
  const enabled = await withTransaction(deps.pool, async (tx) => {
    if (!(await twoFactor.markEnabled(tx, user.id, step))) return false;
    await twoFactor.replaceRecoveryCodes(
      tx,
      user.id,
      codes.map((c) => recoveryCodeDigest(deps, c)),
    );
    await flagChanged(tx, user, actor);
    return true;
  });
  if (!enabled) return { refusal: Refusal.TWO_FACTOR_REFUSAL_ALREADY_ENABLED, recoveryCodes: [] };
  return { refusal: Refusal.TWO_FACTOR_REFUSAL_UNSPECIFIED, recoveryCodes: codes };
}

/**
 * `userId` 0: the actor turns their own off and must give their password. Otherwise the admin API
 * (`PATCH /users/:id/disable_two_factor`), with GitLab's rules: administrators only, and not for
 * another administrator's account.
 */
export async function disableTwoFactor(
  deps: Deps,
  actor: common.Actor | undefined,
  req: { userId: number; password: string },
): Promise<auth.DisableTwoFactorResponse> {
  let user: UserRow;
  if (req.userId) {
    requireAdmin(actor);
    const target = await findUserById(deps.pool, req.userId);
    if (!target) throw notFound("User");
    if (target.admin)
      throw forbidden(
        "Two-factor authentication for admins cannot be disabled via the API. Use the Rails console",
      );
    if (!target.two_factor_enabled)
      throw badRequest("Two-factor authentication is not enabled for this user");
    user = target;
  } else {
    user = await signedInUser(deps, actor);
    if (!(await passwordConfirms(deps, user, req.password)))
      return { refusal: Refusal.TWO_FACTOR_REFUSAL_WRONG_PASSWORD };
    if (!user.two_factor_enabled) return { refusal: Refusal.TWO_FACTOR_REFUSAL_NOT_ENABLED };
  }
  await withTransaction(deps.pool, async (tx) => {
    await twoFactor.removeTwoFactor(tx, user.id);
    await flagChanged(tx, user, actor);
  });
  return { refusal: Refusal.TWO_FACTOR_REFUSAL_UNSPECIFIED };
}
