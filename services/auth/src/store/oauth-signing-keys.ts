import type { Queryable } from "@canopy/kit";
import type { JWK } from "jose";

export interface SigningKeyRow {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  created_at: Date;
  retired_at: Date | null;
}

/** Unretired keys created within the last `days` days. */
export async function findFreshSigningKeys(db: Queryable, days: number): Promise<SigningKeyRow[]> {
  const { rows } = await db.query<SigningKeyRow>(
    "SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL AND created_at > now() - make_interval(days => $1)",
    [days],
  );
  return rows;
}

export async function retireActiveSigningKeys(db: Queryable): Promise<void> {
  await db.query("UPDATE oauth_signing_keys SET retired_at = now() WHERE retired_at IS NULL");
}

export async function insertSigningKey(
  db: Queryable,
  kid: string,
  privateJwk: JWK,
  publicJwk: JWK,
): Promise<void> {
  await db.query("INSERT INTO oauth_signing_keys (kid, private_jwk, public_jwk) VALUES ($1, $2, $3)", [
    kid,
    privateJwk,
    publicJwk,
  ]);
}

/** The newest unretired key. */
export async function findCurrentSigningKey(db: Queryable): Promise<SigningKeyRow | undefined> {
  const { rows } = await db.query<SigningKeyRow>(
    "SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1",
  );
  return rows[0];
}

/** Unretired keys and those retired less than `seconds` ago, newest first. */
export async function listPublishableSigningKeys(db: Queryable, seconds: number): Promise<SigningKeyRow[]> {
  const { rows } = await db.query<SigningKeyRow>(
    `SELECT * FROM oauth_signing_keys
      WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
      ORDER BY created_at DESC`,
    [seconds],
  );
  return rows;
}
