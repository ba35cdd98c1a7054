import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from "jose";
import { withAdvisoryLock } from "@canopy/kit";
import type { Deps } from "../../deps";
import {
  findCurrentSigningKey,
  findFreshSigningKeys,
  insertSigningKey,
  listPublishableSigningKeys,
  retireActiveSigningKeys,
} from "../../store/oauth-signing-keys";

export interface SigningKey {
  kid: string;
  key: KeyLike | Uint8Array;
}

/**
 * RS256 keys for ID tokens, kept in the database so every replica signs with the same key and
 * restarts change nothing. When the newest key is older than the rotation period a new one takes
 * over; the old one stays in the JWKS until every ID token it signed has expired.
 */
export async function rotateSigningKeys(deps: Deps): Promise<void> {
  const days = deps.config.CANOPY_OIDC_KEY_ROTATION_DAYS;
  await withAdvisoryLock(deps.pool, "canopy:auth:signing-keys", async (db) => {
    if ((await findFreshSigningKeys(db, days)).length) return;
    const { publicKey, privateKey } = await generateKeyPair("RS256", {
      modulusLength: 2048,
      extractable: true,
    });
    const kid = randomUUID();
    await retireActiveSigningKeys(db);
    await insertSigningKey(
      db,
      kid,
      { ...(await exportJWK(privateKey)), kid, alg: "RS256" },
      { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" },
    );
    deps.log.info({ kid }, "new ID-token signing key");
  });
}

let cached: { at: number; key: SigningKey } | undefined;

/** The key that signs now (cached for a minute: rotation is rare). */
export async function currentSigningKey(deps: Deps): Promise<SigningKey> {
  if (cached && Date.now() - cached.at < 60_000) return cached.key;
  const row = await findCurrentSigningKey(deps.pool);
  if (!row) {
    await rotateSigningKeys(deps);
    return currentSigningKey(deps);
  }
  const key = { kid: row.kid, key: await importJWK(row.private_jwk, "RS256") };
  cached = { at: Date.now(), key };
  return key;
}

/** Public keys that may still verify a live ID token. */
export async function publishedKeys(deps: Deps): Promise<JWK[]> {
  // A retired key stays published while ID tokens it signed may still be live (plus a 5-minute margin).
  const rows = await listPublishableSigningKeys(deps.pool, deps.config.CANOPY_OAUTH_ID_TOKEN_SECONDS + 300);
  return rows.map((r) => r.public_jwk);
}
