import { passwordMatches, spendVerification } from "../domain/passwords";
import { oauth } from "@canopy/protos";
import type { Deps } from "../deps";
import { findUserByLogin, toUser } from "../store/users";

/**
 * Checks a username-or-email and password; used by the sign-in page and the password grant. Failed
 * attempts are counted per account; after CANOPY_SIGN_IN_MAX_ATTEMPTS the account is locked for
 * CANOPY_SIGN_IN_LOCK_MINUTES, during which even the right password is refused.
 */
export async function verifyPassword(deps: Deps, login: string, password: string) {
  const user = login ? await findUserByLogin(deps.pool, login) : undefined;
  if (!user || !user.password_hash) {
    await spendVerification(password);
    return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID };
  }
  const { rows } = await deps.pool.query<{ locked_until: Date | null }>(
    "SELECT locked_until FROM users WHERE id = $1 AND locked_until > now()",
    [user.id],
  );
  if (rows[0])
    return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED, lockedUntil: rows[0].locked_until! };
  if (!(await passwordMatches(user.password_hash, password))) return recordFailure(deps, user.id);
  if (user.state !== "active") return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_BLOCKED };
  await deps.pool.query(
    "UPDATE users SET failed_attempts = 0, locked_until = NULL, last_sign_in_at = now() WHERE id = $1",
    [user.id],
  );
  return {
    user: toUser({ ...user, last_sign_in_at: new Date() }),
    refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED,
  };
}

async function recordFailure(deps: Deps, userId: number) {
  const { CANOPY_SIGN_IN_MAX_ATTEMPTS: max, CANOPY_SIGN_IN_LOCK_MINUTES: minutes } = deps.config;
  // One statement, so concurrent failures cannot undercount.
  const { rows } = await deps.pool.query<{ locked_until: Date | null }>(
    `UPDATE users SET
       failed_attempts = CASE WHEN failed_attempts + 1 >= $2 THEN 0 ELSE failed_attempts + 1 END,
       locked_until = CASE WHEN failed_attempts + 1 >= $2 THEN now() + make_interval(mins => $3) ELSE locked_until END
     WHERE id = $1 RETURNING locked_until`,
    [userId, max, minutes],
  );
  const lockedUntil = rows[0]?.locked_until;
  return lockedUntil && lockedUntil > new Date()
    ? { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED, lockedUntil }
    : { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID };
}
