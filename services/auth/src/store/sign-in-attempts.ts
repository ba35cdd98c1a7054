import type { Queryable } from "@canopy/kit";

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

/** A complete sign-in: the count starts again and the time is kept (GitLab's last_sign_in_at). */
export async function recordSignIn(db: Queryable, userId: number): Promise<Date> {
  const { rows } = await db.query<{ last_sign_in_at: Date }>(
    "UPDATE users SET failed_attempts = 0, locked_until = NULL, last_sign_in_at = now() WHERE id = $1 RETURNING last_sign_in_at",
    [userId],
  );
  return rows[0]?.last_sign_in_at ?? new Date();
}
