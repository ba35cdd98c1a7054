import type { Queryable } from "@canopy/kit";

export interface OAuthTokenRow {
  id: number;
  family_id: number | null;
  application_id: number | null;
  user_id: number | null;
  grant_id: number | null;
  scopes: string[];
  /** The refresh token's scope when narrower access was asked for; null: the same as `scopes`. */
  refresh_scopes: string[] | null;
  expires_in: number | null;
  refresh_expires_at: Date | null;
  nonce: string | null;
  auth_time: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  rotated_at: Date | null;
  replaced_by: number | null;
  rotation_reply: Buffer | null;
}

export type NewOAuthToken = Pick<
  OAuthTokenRow,
  | "family_id"
  | "application_id"
  | "user_id"
  | "grant_id"
  | "scopes"
  | "refresh_scopes"
  | "expires_in"
  | "refresh_expires_at"
  | "nonce"
  | "auth_time"
> & { token_digest: string; refresh_digest: string | null };

export async function insertOAuthToken(db: Queryable, t: NewOAuthToken): Promise<OAuthTokenRow> {
  // The id is drawn first so that a token starting a family can be its own family in one statement.
  const { rows } = await db.query<OAuthTokenRow>({
    name: "oauth-token-insert",
    text: `WITH next AS (SELECT nextval(pg_get_serial_sequence('oauth_tokens', 'id')) AS id)
      INSERT INTO oauth_tokens (id, family_id, application_id, user_id, grant_id, token_digest, refresh_digest,
        scopes, expires_in, refresh_expires_at, nonce, auth_time, refresh_scopes)
      SELECT next.id, COALESCE($1, next.id), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM next RETURNING *`,
    values: [
      t.family_id,
      t.application_id,
      t.user_id,
      t.grant_id,
      t.token_digest,
      t.refresh_digest,
      t.scopes,
      t.expires_in,
      t.refresh_expires_at,
      t.nonce,
      t.auth_time,
      t.refresh_scopes,
    ],
  });
  return rows[0]!;
}

/** The token with its application's uid and its user's name and state. */
export type OAuthTokenWithOwner = OAuthTokenRow & {
  /** The digest the access token is stored under (a key rotation moves it on use). */
  token_digest: string;
  application_uid: string | null;
  username: string | null;
  user_state: string | null;
  user_admin: boolean | null;
  user_external: boolean | null;
};

const WITH_OWNER = `SELECT t.*, a.uid AS application_uid, u.username, u.state AS user_state, u.admin AS user_admin, u.external AS user_external
  FROM oauth_tokens t LEFT JOIN oauth_applications a ON a.id = t.application_id LEFT JOIN users u ON u.id = t.user_id`;

/** The token stored under one of these digests (see tokenDigests). */
export async function findByAccessDigest(
  db: Queryable,
  digests: string[],
): Promise<OAuthTokenWithOwner | undefined> {
  const { rows } = await db.query<OAuthTokenWithOwner>(
    `${WITH_OWNER} WHERE t.token_digest = ANY($1::text[])`,
    [digests],
  );
  return rows[0];
}

export async function findByRefreshDigest(
  db: Queryable,
  digests: string[],
): Promise<OAuthTokenWithOwner | undefined> {
  const { rows } = await db.query<OAuthTokenWithOwner>(
    `${WITH_OWNER} WHERE t.refresh_digest = ANY($1::text[])`,
    [digests],
  );
  return rows[0];
}

export type RefreshableToken = OAuthTokenRow & { user_state: string | null; user_admin: boolean | null };

/**
 * Locks a refresh token's row (parallel refreshes of one token are answered one after another), with
 * its owner's state in the same round trip.
 */
export async function lockByRefreshDigest(
  tx: Queryable,
  digests: string[],
): Promise<RefreshableToken | undefined> {
  const { rows } = await tx.query<RefreshableToken>({
    name: "oauth-token-lock-by-refresh",
    text: `SELECT t.*, u.state AS user_state, u.admin AS user_admin FROM oauth_tokens t LEFT JOIN users u ON u.id = t.user_id
      WHERE t.refresh_digest = ANY($1::text[]) FOR UPDATE OF t`,
    values: [digests],
  });
  return rows[0];
}

/** Retires a rotated token: revoked, pointing at its successor, holding the sealed grace reply. */
export async function retireRotated(tx: Queryable, id: number, successor: number, reply: Buffer) {
  const { rows } = await tx.query<{ id: number; user_id: number | null }>({
    name: "oauth-token-retire",
    text: `UPDATE oauth_tokens SET revoked_at = now(), rotated_at = now(), replaced_by = $2, rotation_reply = $3
      WHERE id = $1 RETURNING id, user_id`,
    values: [id, successor, reply],
  });
  return rows;
}

/** A token whose revocation is to be announced. */
export type RevokedToken = { id: number; user_id: number | null };

/** Which live tokens to revoke; each answer says which changed, so their revocation can be announced. */
const REVOKE_BY = {
  id: "id",
  grant: "grant_id",
  family: "family_id",
  application: "application_id",
} as const;

async function revokeLive(
  tx: Queryable,
  by: keyof typeof REVOKE_BY,
  value: number | null,
): Promise<RevokedToken[]> {
  const { rows } = await tx.query<RevokedToken>(
    `UPDATE oauth_tokens SET revoked_at = now() WHERE revoked_at IS NULL AND ${REVOKE_BY[by]} = $1
     RETURNING id, user_id`,
    [value],
  );
  return rows;
}

export const revokeTokenById = (tx: Queryable, id: number) => revokeLive(tx, "id", id);
/** Every token issued from one authorization code (a replayed code revokes them). */
export const revokeTokensOfGrant = (tx: Queryable, grantId: number) => revokeLive(tx, "grant", grantId);
/** Every token of one refresh chain (reuse of a rotated refresh token revokes it). */
export const revokeTokenFamily = (tx: Queryable, familyId: number | null) =>
  revokeLive(tx, "family", familyId);
export const revokeTokensOfApplication = (tx: Queryable, applicationId: number) =>
  revokeLive(tx, "application", applicationId);
/**
 * Revokes every live token a user's deletion takes away: those issued to the user, and those of the
 * applications the user owns (issued to anyone, or to no one). The rows go with the user, but gateways
 * cache answers, so each must be announced first.
 */
export async function revokeTokensOfUser(tx: Queryable, userId: number) {
  const { rows } = await tx.query<{ id: number; user_id: number | null }>(
    `UPDATE oauth_tokens SET revoked_at = now() WHERE revoked_at IS NULL
       AND (user_id = $1 OR application_id IN (SELECT id FROM oauth_applications WHERE owner_id = $1))
     RETURNING id, user_id`,
    [userId],
  );
  return rows;
}

/** Whether the user already holds a token of this application with exactly these scopes (expired counts). */
export async function hasMatchingToken(
  db: Queryable,
  userId: number,
  applicationId: number,
  scopes: string[],
) {
  const { rows } = await db.query(
    `SELECT 1 FROM oauth_tokens WHERE user_id = $1 AND application_id = $2 AND revoked_at IS NULL
       AND scopes @> $3 AND scopes <@ $3 LIMIT 1`,
    [userId, applicationId, scopes],
  );
  return rows.length > 0;
}

/** After a key rotation: the access token's digest under the current key (found under the previous one). */
export async function moveAccessDigest(db: Queryable, id: number, digest: string): Promise<void> {
  await db.query("UPDATE oauth_tokens SET token_digest = $2 WHERE id = $1", [id, digest]);
}
