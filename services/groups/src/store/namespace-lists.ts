import { countCapped, escapeLike, type Queryable, type SearchTerms, UTC_TODAY, Where } from "@canopy/kit";
import { authorizedNamespacesSql } from "./access";

/** GitLab's Namespaces API reads (lib/api/namespaces.rb): the caller's namespaces, or all for admins. */

export interface NamespaceListRow {
  id: number;
  kind: "group" | "user";
  owner_id: number | null;
  parent_id: number | null;
  traversal_ids: number[];
  path: string;
  name: string;
  full_path: string;
  avatar_filename: string | null;
  /** The owner's avatar URL for a personal namespace. */
  user_avatar_url: string | null;
}

export interface NamespaceListQuery {
  /** 0 with `all`: an administrator's list of every namespace. */
  userId: number;
  all: boolean;
  /** Groups the caller directly owns (instead of every direct membership), and their own namespace. */
  ownedOnly: boolean;
  topLevelOnly: boolean;
  search?: SearchTerms;
  fullPathSearch: boolean;
}

const COLUMNS = `n.id, n.kind, n.owner_id, n.parent_id, n.traversal_ids, n.path, n.name, n.full_path,
  n.avatar_filename, (SELECT NULLIF(u.avatar_url, '') FROM users u WHERE u.id = n.owner_id) AS user_avatar_url`;

function build(q: NamespaceListQuery): Where {
  const w = new Where();
  // A group being removed (free plan) is gone for every reader already.
  w.and("NOT n.pending_removal");
  if (!q.all) {
    const u = w.param(q.userId);
    // User#namespaces: the groups of their direct memberships (Owner only with owned_only), and theirs.
    w.and(`n.owner_id = ${u} OR n.id IN (
      SELECT m.namespace_id FROM members m JOIN users mu ON mu.id = m.user_id AND mu.state = 'active'
       WHERE m.user_id = ${u} AND m.access_level >= ${q.ownedOnly ? 50 : 10}
         AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY}))`);
  }
  if (q.topLevelOnly) w.and("n.parent_id IS NULL");
  if (q.search) {
    const columns = q.fullPathSearch ? ["n.full_path", "n.full_name"] : ["n.path", "n.name"];
    const s = q.search;
    if (s.exact !== undefined) {
      const p = w.param(escapeLike(s.exact));
      w.and(columns.map((c) => `${c} ILIKE ${p}`).join(" OR "));
    } else {
      const ps = s.words.map((word) => w.param(`%${escapeLike(word)}%`));
      w.and(columns.map((c) => `(${ps.map((p) => `${c} ILIKE ${p}`).join(" AND ")})`).join(" OR "));
    }
  }
  return w;
}

/** One page, by id (GitLab's paginate adds ORDER BY id to an unordered relation). */
export async function listNamespaceRows(
  db: Queryable,
  q: NamespaceListQuery,
  window: { limit: number; offset: number },
): Promise<NamespaceListRow[]> {
  const w = build(q);
  const { rows } = await db.query<NamespaceListRow>(
    `SELECT ${COLUMNS} FROM namespaces n ${w.sql} ORDER BY n.id
      LIMIT ${Number(window.limit)} OFFSET ${Number(window.offset)}`,
    w.params,
  );
  return rows;
}

export async function countNamespaceRows(db: Queryable, q: NamespaceListQuery): Promise<number> {
  const w = build(q);
  return countCapped(db, `SELECT 1 FROM namespaces n ${w.sql}`, w.params);
}

/** The namespace with this id, or this full path (case-insensitively). */
export async function findNamespaceListRow(
  db: Queryable,
  ref: { id?: number; fullPath?: string },
): Promise<NamespaceListRow | undefined> {
  const { rows } = await db.query<NamespaceListRow>(
    ref.id
      ? `SELECT ${COLUMNS} FROM namespaces n WHERE n.id = $1 AND NOT n.pending_removal`
      : `SELECT ${COLUMNS} FROM namespaces n WHERE lower(n.full_path) = lower($1) AND NOT n.pending_removal`,
    [ref.id || ref.fullPath],
  );
  return rows[0];
}

/** The user's effective access to each of these groups (direct, inherited or shared), by id. */
export async function accessToGroups(
  db: Queryable,
  userId: number,
  ids: number[],
): Promise<Map<number, number>> {
  const { rows } = await db.query<{ id: number; access: number }>(
    `WITH a AS (${authorizedNamespacesSql("$1")})
     SELECT n.id, COALESCE(max(a.access_level), 0)::int AS access
       FROM namespaces n LEFT JOIN a ON a.namespace_id = ANY(n.traversal_ids)
      WHERE n.id = ANY($2::bigint[]) GROUP BY n.id`,
    [userId, ids],
  );
  return new Map(rows.map((r) => [Number(r.id), r.access]));
}

/** Distinct users holding a (counted) membership in each group or below it (users_with_descendants). */
export async function membersWithDescendants(db: Queryable, ids: number[]): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<{ id: number; n: number }>(
    `SELECT g.id, count(DISTINCT m.user_id)::int AS n
       FROM namespaces g
       JOIN namespaces d ON d.traversal_ids >= g.traversal_ids
        AND d.traversal_ids < (g.traversal_ids[1:cardinality(g.traversal_ids) - 1] || (g.traversal_ids[cardinality(g.traversal_ids)] + 1))
       JOIN members m ON m.namespace_id = d.id AND m.access_level >= 10
        AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
       JOIN users u ON u.id = m.user_id AND u.state = 'active'
      WHERE g.id = ANY($1::bigint[]) GROUP BY g.id`,
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.id), r.n]));
}
