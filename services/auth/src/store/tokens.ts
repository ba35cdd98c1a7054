import type { Queryable } from "@canopy/kit";
import type { auth } from "@canopy/protos";
import { isExpired } from "../domain/tokens";
import { countCapped } from "./users";

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
}

// expires_at as text keeps it a calendar date, untouched by time zones.
const COLUMNS = `t.id, t.user_id, t.name, t.description, t.scopes, to_char(t.expires_at, 'YYYY-MM-DD') AS expires_at,
  t.revoked, t.created_at, t.last_used_at`;

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
  },
): Promise<TokenRow> {
  const { rows } = await db.query<TokenRow>(
    `INSERT INTO personal_access_tokens AS t (user_id, name, description, scopes, expires_at, token_digest)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [t.userId, t.name, t.description, t.scopes, t.expiresAt, t.digest],
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

/** The token with this digest and its owner, in one round trip (the hot path of Authenticate). */
export async function findTokenWithUserByDigest(db: Queryable, digest: string) {
  const { rows } = await db.query<
    TokenRow & { user_username: string; user_admin: boolean; user_state: string }
  >(
    `SELECT ${COLUMNS}, u.username AS user_username, u.admin AS user_admin, u.state AS user_state
       FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_digest = $1`,
    [digest],
  );
  return rows[0];
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
}

function where(f: TokenFilter): [string, unknown[]] {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(`$${params.length}`));
  };
  if (f.userId) add((p) => `t.user_id = ${p}`, f.userId);
  if (f.revoked !== undefined) add((p) => `t.revoked = ${p}`, f.revoked);
  if (f.search) add((p) => `t.name ILIKE ${p}`, `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const active = "(NOT t.revoked AND (t.expires_at IS NULL OR t.expires_at > current_date))";
  if (f.state === "active") clauses.push(active);
  if (f.state === "inactive") clauses.push(`NOT ${active}`);
  return [clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params];
}

export async function listTokens(db: Queryable, filter: TokenFilter, limit: number, offset: number) {
  const [clause, params] = where(filter);
  const { rows } = await db.query<TokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens t ${clause} ORDER BY t.id LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  return rows.map(toToken);
}

export async function countTokens(db: Queryable, filter: TokenFilter, cap: number) {
  const [clause, params] = where(filter);
  return countCapped(db, `SELECT 1 FROM personal_access_tokens t ${clause}`, params, cap);
}
