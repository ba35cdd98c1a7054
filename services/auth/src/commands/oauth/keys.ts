import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from "jose";
import { withAdvisoryLock } from "@canopy/kit";
import type { Deps } from "../../deps";

interface KeyRow {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  created_at: Date;
  retired_at: Date | null;
}

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
    const { rows } = await db.query<KeyRow>(
      "SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL AND created_at > now() - make_interval(days => $1)",
      [days],
    );
    if (rows.length) return;
    const { publicKey, privateKey } = await generateKeyPair("RS256", {
      modulusLength: 2048,
      extractable: true,
    });
    const kid = randomUUID();
    await db.query("UPDATE oauth_signing_keys SET retired_at = now() WHERE retired_at IS NULL");
    await db.query("INSERT INTO oauth_signing_keys (kid, private_jwk, public_jwk) VALUES ($1, $2, $3)", [
      kid,
      { ...(await exportJWK(privateKey)), kid, alg: "RS256" },
      { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" },
    ]);
    deps.log.info({ kid }, "new ID-token signing key");
  });
}

let cached: { at: number; key: SigningKey } | undefined;

/** The key that signs now (cached for a minute: rotation is rare). */
export async function currentSigningKey(deps: Deps): Promise<SigningKey> {
  if (cached && Date.now() - cached.at < 60_000) return cached.key;
  const { rows } = await deps.pool.query<KeyRow>(
    "SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1",
  );
  if (!rows[0]) {
    await rotateSigningKeys(deps);
    return currentSigningKey(deps);
  }
  const key = { kid: rows[0].kid, key: await importJWK(rows[0].private_jwk, "RS256") };
  cached = { at: Date.now(), key };
  return key;
}

/** Public keys that may still verify a live ID token. */
export async function publishedKeys(deps: Deps): Promise<JWK[]> {
  const { rows } = await deps.pool.query<KeyRow>(
    `SELECT * FROM oauth_signing_keys
      WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
      ORDER BY created_at DESC`,
    [deps.config.CANOPY_OAUTH_ID_TOKEN_SECONDS + 300],
  );
  return rows.map((r) => r.public_jwk);
}
