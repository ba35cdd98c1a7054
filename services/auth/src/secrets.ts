import { createHash, randomBytes } from "node:crypto";
import type { Pool } from "pg";
import { ensureInstanceSecret } from "./store/instance-secrets";

/**
 * The key for hashing tokens. From CANOPY_SECRET_KEY when set; otherwise generated once and kept in
 * the database, so every replica and every restart uses the same key without any setup.
 */
export async function tokenHashKey(pool: Pool, configured?: string): Promise<Buffer> {
  if (configured) return createHash("sha256").update(configured).digest();
  return ensureInstanceSecret(pool, "token_hash_key", randomBytes(32));
}
