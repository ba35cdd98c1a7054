import type { Queryable } from "@canopy/kit";
import type { UserRow } from "./users";

/**
 * The account lock: failed sign-ins (passwords and two-factor codes alike) counted per user; at the
 * limit the account locks for a while and the count starts again.
 */
export async function lockedUntil(db: Queryable, userId: number): Promise<Date | undefined> {
  const { rows } = await db.query<{ locked_until: Date }>(
    "SELECT locked_until FROM users WHERE id = $1 AND locked_until > now()",
    [userId],
  );
  return rows[0]?.locked_until;
}

/** Counts a failure; answers the lock's end when this failure locked the account (or it already was). */
export async function recordFailedAttempt(
  db: Queryable,
  userId: number,
  maxAttempts: number,
  lockMinutes: number,
): Promise<Date | undefined> {
  // One statement, so concurrent failures cannot undercount.
  const { rows } = await db.query<{ locked_until: Date | null }>(
    `UPDATE users SET
       failed_attempts = CASE WHEN failed_attempts + 1 >= $2 THEN 0 ELSE failed_attempts + 1 END,
       locked_until = CASE WHEN failed_attempts + 1 >= $2 THEN now() + make_interval(mins => $3) ELSE locked_until END
     WHERE id = $1 RETURNING locked_until`,
    [userId, maxAttempts, lockMinutes],
  );
  const until = rows[0]?.locked_until;
  return until && until > new Date() ? until : undefined;
}

/** A password accepted without a sign-in (the password grant): the count starts again (GitLab's unlock_access!). */
export async function resetFailedAttempts(db: Queryable, userId: number): Promise<void> {
  await db.query("UPDATE users SET failed_attempts = 0, locked_until = NULL WHERE id = $1", [userId]);
}

/**
 * A completed sign-in, as Devise's trackable records it: the current time and address become the
 * last ones (at the first sign-in, the new ones are both), the new ones current, one more in the
 * count; and the failure count starts again. One statement: every right-hand side reads the row as
 * it was, and two sign-ins at once both count.
 */
export async function recordSignIn(
  db: Queryable,
  userId: number,
  address: string | null,
): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET failed_attempts = 0, locked_until = NULL,
       last_sign_in_at = COALESCE(current_sign_in_at, now()), current_sign_in_at = now(),
       last_sign_in_ip = COALESCE(current_sign_in_ip, $2::inet), current_sign_in_ip = $2::inet,
       sign_in_count = sign_in_count + 1
     WHERE id = $1 RETURNING *`,
    [userId, address],
  );
  return rows[0];
}
