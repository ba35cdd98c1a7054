import { containsPattern, countCapped, Where, type Queryable } from "@canopy/kit";
import type { auth } from "@canopy/protos";
import { isExpired } from "../domain/tokens";

export interface TokenRow {
  id: number;
  user_id: number;
  name: string;
  description: string;
  scopes: string[];
  expires_at: string | null;
  revoked: boolean;
  created_at: Date;
  last_used_at: Date | null;
  impersonation: boolean;
}

// expires_at as text keeps it a calendar date, untouched by time zones.
const COLUMNS = `t.id, t.user_id, t.name, t.description, t.scopes, to_char(t.expires_at, 'YYYY-MM-DD') AS expires_at,
  t.revoked, t.created_at, t.last_used_at, t.impersonation`;

export const toToken = (r: TokenRow): auth.PersonalAccessToken => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  description: r.description,
  scopes: r.scopes,
  expiresAt: r.expires_at ?? "",
  revoked: r.revoked,
  active: !r.revoked && !isExpired(r.expires_at),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at ?? undefined,
  impersonation: r.impersonation,
});

export async function insertToken(
  db: Queryable,
  t: {
    userId: number;
    name: string;
    description: string;
    scopes: string[];
    expiresAt: string | null;
    digest: string;
    impersonation?: boolean;
  },
): Promise<TokenRow> {
  const { rows } = await db.query<TokenRow>(
    `INSERT INTO personal_access_tokens AS t (user_id, name, description, scopes, expires_at, token_digest, impersonation)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [t.userId, t.name, t.description, t.scopes, t.expiresAt, t.digest, Boolean(t.impersonation)],
  );
  return rows[0]!;
}

export async function findTokenById(db: Queryable, id: number): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens t WHERE t.id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * The token with one of these digests (see tokenDigests) and its owner, in one round trip (the hot
 * path of Authenticate), with the digest it is stored under.
 */
export async function findTokenWithUserByDigest(db: Queryable, digests: string[]) {
  const { rows } = await db.query<
    TokenRow & {
      token_digest: string;
      user_username: string;
      user_admin: boolean;
      user_external: boolean;
      user_state: string;
    }
  >(
    `SELECT ${COLUMNS}, t.token_digest, u.username AS user_username, u.admin AS user_admin, u.external AS user_external, u.state AS user_state
       FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_digest = ANY($1::text[])`,
    [digests],
  );
  return rows[0];
}

/** After a key rotation: the token's digest under the current key (found under the previous one). */
export async function moveTokenDigest(db: Queryable, id: number, digest: string) {
  await db.query("UPDATE personal_access_tokens SET token_digest = $2 WHERE id = $1", [id, digest]);
}

export async function touchToken(db: Queryable, id: number) {
  // At most once a minute per token: a write on every request would make reads cost writes.
  await db.query(
    `UPDATE personal_access_tokens SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

export async function revokeToken(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE personal_access_tokens SET revoked = true, updated_at = now() WHERE id = $1 AND NOT revoked",
    [id],
  );
  return Boolean(rowCount);
}

export interface TokenFilter {
  userId?: number;
  state?: "active" | "inactive";
  revoked?: boolean;
  search?: string;
  /** Impersonation tokens only (true), none of them (false), or both (absent). */
  impersonation?: boolean;
}

const ACTIVE = "NOT t.revoked AND (t.expires_at IS NULL OR t.expires_at > current_date)";

function where(f: TokenFilter): Where {
  const w = new Where();
  if (f.userId) w.and(`t.user_id = ${w.param(f.userId)}`);
  if (f.revoked !== undefined) w.and(`t.revoked = ${w.param(f.revoked)}`);
  if (f.impersonation !== undefined) w.and(`t.impersonation = ${w.param(f.impersonation)}`);
  if (f.search) w.and(`t.name ILIKE ${w.param(containsPattern(f.search))}`);
  if (f.state === "active") w.and(ACTIVE);
  if (f.state === "inactive") w.and(`NOT (${ACTIVE})`);
  return w;
}

export async function listTokens(db: Queryable, filter: TokenFilter, limit: number, offset: number) {
  const w = where(filter);
  const { rows } = await db.query<TokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens t ${w.sql} ORDER BY t.id
      LIMIT ${w.param(limit)} OFFSET ${w.param(offset)}`,
    w.params,
  );
  return rows.map(toToken);
}

export async function countTokens(db: Queryable, filter: TokenFilter) {
  const w = where(filter);
  return countCapped(db, `SELECT 1 FROM personal_access_tokens t ${w.sql}`, w.params);
}

/** Root's token from CANOPY_ROOT_TOKEN (no expiry); nothing if a token with this digest exists. */
export async function insertRootToken(db: Queryable, t: { userId: number; name: string; digest: string }) {
  const { rowCount } = await db.query(
    `INSERT INTO personal_access_tokens (user_id, name, scopes, token_digest)
     VALUES ($1, $2, $3, $4) ON CONFLICT (token_digest) DO NOTHING`,
    [t.userId, t.name, ["api", "sudo"], t.digest],
  );
  return Boolean(rowCount);
}

/**
 * After a key rotation: root's token (CANOPY_ROOT_TOKEN) under the current key's digest. A start
 * with the new key alone has already made it again under the new digest: the old row then goes.
 */
export async function moveRootTokenDigest(db: Queryable, from: string, to: string): Promise<void> {
  await db.query(
    `DELETE FROM personal_access_tokens WHERE token_digest = $1
       AND EXISTS (SELECT 1 FROM personal_access_tokens WHERE token_digest = $2)`,
    [from, to],
  );
  await db.query("UPDATE personal_access_tokens SET token_digest = $2 WHERE token_digest = $1", [from, to]);
}
