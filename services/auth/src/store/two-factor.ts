import type { Queryable } from "@canopy/kit";

export interface TwoFactorRow {
  user_id: number;
  secret_encrypted: Buffer;
  enabled_at: Date | null;
  last_used_step: string | null;
}

export async function findTwoFactor(db: Queryable, userId: number): Promise<TwoFactorRow | undefined> {
  const { rows } = await db.query<TwoFactorRow>("SELECT * FROM user_two_factor WHERE user_id = $1", [userId]);
  return rows[0];
}

/**
 * Keeps a pending secret for enrolment. An existing pending one wins (a concurrent page load or a
 * reload must not replace the secret the user has just scanned); an enabled one is never touched.
 */
export async function insertPendingSecret(
  db: Queryable,
  userId: number,
  sealed: Buffer,
): Promise<TwoFactorRow> {
  await db.query(
    "INSERT INTO user_two_factor (user_id, secret_encrypted) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING",
    [userId, sealed],
  );
  return (await findTwoFactor(db, userId))!;
}

/** Enables a pending enrolment with the step of the code that confirmed it; false if not pending. */
export async function markEnabled(db: Queryable, userId: number, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE user_two_factor SET enabled_at = now(), last_used_step = $2
     WHERE user_id = $1 AND enabled_at IS NULL`,
    [userId, step],
  );
  if (rowCount)
    await db.query("UPDATE users SET two_factor_enabled = true, updated_at = now() WHERE id = $1", [userId]);
  return Boolean(rowCount);
}

/**
 * Spends a code's step: only if it is later than the last one spent, in one statement, so the same
 * code sent twice at once (to two replicas) is accepted once.
 */
export async function spendStep(db: Queryable, userId: number, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE user_two_factor SET last_used_step = $2
     WHERE user_id = $1 AND enabled_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < $2)`,
    [userId, step],
  );
  return Boolean(rowCount);
}

/** Turns two-factor off: the secret and the recovery codes go; the flag follows. */
export async function removeTwoFactor(db: Queryable, userId: number): Promise<void> {
  await db.query("DELETE FROM user_two_factor WHERE user_id = $1", [userId]);
  await db.query("DELETE FROM user_recovery_codes WHERE user_id = $1", [userId]);
  await db.query("UPDATE users SET two_factor_enabled = false, updated_at = now() WHERE id = $1", [userId]);
}

export async function replaceRecoveryCodes(db: Queryable, userId: number, digests: string[]): Promise<void> {
  await db.query("DELETE FROM user_recovery_codes WHERE user_id = $1", [userId]);
  await db.query("INSERT INTO user_recovery_codes (user_id, code_digest) SELECT $1, unnest($2::text[])", [
    userId,
    digests,
  ]);
}

/** Spends a recovery code: true once per code, whichever replica sees it first. */
export async function spendRecoveryCode(db: Queryable, userId: number, digests: string[]): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE user_recovery_codes SET used_at = now()
     WHERE user_id = $1 AND code_digest = ANY($2::text[]) AND used_at IS NULL`,
    [userId, digests],
  );
  return Boolean(rowCount);
}
