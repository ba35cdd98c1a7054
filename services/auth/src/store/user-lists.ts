import { containsPattern, countCapped, Where, type Queryable } from "@canopy/kit";
import type { UserStateName } from "../domain/user-state";
import type { UserRow } from "./users";

/** The user lists (GET /users and its filters, GitLab's UsersFinder): which users, in which order. */

export interface UserFilter {
  search?: string;
  username?: string;
  /** Users in one of these states. */
  states?: UserStateName[];
  /** Users in none of these states (GitLab hides some from non-administrators). */
  excludedStates?: UserStateName[];
  /** The user with this identity (extern_uid already normalized for its provider). */
  identity?: { provider: string; externUid: string };
  /** Whether search may match private emails (administrators only, as in GitLab's UsersFinder). */
  searchPrivateEmails?: boolean;
  /** Users having every one of these custom attributes (administrators only). */
  customAttributes?: { key: string; value: string }[];
  /** GitLab's User.search order instead of the newest first (needs `search`). */
  searchOrder?: boolean;
}

function where(filter: UserFilter): Where {
  const w = new Where();
  if (filter.username) w.and(`lower(username) = lower(${w.param(filter.username)})`);
  if (filter.search) {
    const pattern = w.param(containsPattern(filter.search));
    // Others may only find a user by a public email, written out in full: a search must not reveal
    // a private one.
    const email = filter.searchPrivateEmails
      ? `email ILIKE ${pattern}`
      : `lower(public_email) = lower(${w.param(filter.search)})`;
    w.and(`username ILIKE ${pattern} OR name ILIKE ${pattern} OR ${email}`);
  }
  if (filter.states) w.and(`state = ANY(${w.param(filter.states)})`);
  if (filter.excludedStates) w.and(`state <> ALL(${w.param(filter.excludedStates)})`);
  if (filter.identity) {
    const { provider, externUid } = filter.identity;
    w.and(
      `id IN (SELECT user_id FROM identities WHERE provider = ${w.param(provider)} AND lower(extern_uid) = lower(${w.param(externUid)}))`,
    );
  }
  for (const { key, value } of filter.customAttributes ?? [])
    w.and(
      `id IN (SELECT user_id FROM user_custom_attributes WHERE key = ${w.param(key)} AND value = ${w.param(value)})`,
    );
  return w;
}

/**
 * GitLab's User.search order: an exact (case-insensitive) public email first, then username, then
 * name, then the rest; by name within each, and by id to keep pages stable.
 */
function orderBy(filter: UserFilter, w: Where): string {
  if (!filter.searchOrder || !filter.search) return "id DESC";
  const q = w.param(filter.search.toLowerCase());
  return `CASE WHEN lower(public_email) = ${q} THEN 0 WHEN lower(username) = ${q} THEN 1
    WHEN lower(name) = ${q} THEN 2 ELSE 3 END, name, id`;
}

export async function listUsers(db: Queryable, filter: UserFilter, limit: number, offset: number) {
  const w = where(filter);
  const order = orderBy(filter, w);
  const { rows } = await db.query<UserRow>(
    `SELECT * FROM users ${w.sql} ORDER BY ${order} LIMIT ${w.param(limit)} OFFSET ${w.param(offset)}`,
    w.params,
  );
  return rows;
}

export async function countUsers(db: Queryable, filter: UserFilter) {
  const w = where(filter);
  return countCapped(db, `SELECT 1 FROM users ${w.sql}`, w.params);
}
