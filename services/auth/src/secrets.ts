import { loadInstanceKeys, resealTask, SealingKeys, type BackgroundTask, type Pool } from "@canopy/kit";
import type { AuthConfig } from "./config";
import type { Deps } from "./deps";

/** The context a user's TOTP secret is sealed with: a secret copied onto another user's row does not open. */
export const totpContext = (userId: number | string) => `user:${userId}`;

/**
 * The key for hashing tokens (and, derived from it, the one sealing TOTP secrets). From
 * CANOPY_SECRET_KEY when set; otherwise generated once and kept in the database, so every replica and
 * every restart uses the same key without any setup. CANOPY_SECRET_KEY_PREVIOUS keeps the key before a
 * rotation working.
 */
export async function tokenKeys(
  pool: Pool,
  config: Pick<AuthConfig, "CANOPY_SECRET_KEY" | "CANOPY_SECRET_KEY_PREVIOUS">,
): Promise<Pick<Deps, "tokenKey" | "previousTokenKey" | "totpKeys">> {
  const keys = await loadInstanceKeys(pool, "token_hash_key", config);
  return {
    tokenKey: keys.current,
    previousTokenKey: keys.previous,
    totpKeys: new SealingKeys(keys, "totp-secret"),
  };
}

/** After a key rotation: every TOTP secret moved to the current key. */
export const resealTotpSecrets = (deps: Deps): BackgroundTask[] =>
  resealTask(deps, deps.totpKeys, {
    table: "user_two_factor",
    key: "user_id",
    columns: ["secret_encrypted"],
    contextOf: (id) => totpContext(id),
  });
