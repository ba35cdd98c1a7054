import { createHash, randomBytes } from "node:crypto";
import type { Pool } from "pg";

/**
 * The key for hashing tokens. From CANOPY_SECRET_KEY when set; otherwise generated once and kept in
 * the database, so every replica and every restart uses the same key without any setup.
 */
export async function tokenHashKey(pool: Pool, configured?: string): Promise<Buffer> {
  if (configured) return createHash("sha256").update(configured).digest();
  await pool.query(
    "INSERT INTO instance_secrets (name, value) VALUES ('token_hash_key', $1) ON CONFLICT (name) DO NOTHING",
    [randomBytes(32)],
  );
  const { rows } = await pool.query<{ value: Buffer }>(
    "SELECT value FROM instance_secrets WHERE name = 'token_hash_key'",
  );
  return rows[0]!.value;
}
