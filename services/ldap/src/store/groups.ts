import { type Queryable, UTC_TODAY } from "@canopy/kit";
import type { groupEvents, groups } from "@canopy/protos";

/** This service's copy of a group. */
export interface GroupRow {
  id: number;
  parent_id: number | null;
  traversal_ids: number[];
  full_path: string;
  name: string;
  visibility_level: number;
}

const COLUMNS = `id::int, parent_id::int, traversal_ids::int[] AS traversal_ids, full_path, name, visibility_level`;

/** A group by id or by full path (case-insensitive, as GitLab's routes find it). */
export async function findGroupByRef(
  db: Queryable,
  ref: groups.GroupRef | undefined,
): Promise<GroupRow | undefined> {
  if (!ref) return undefined;
  const { rows } = ref.id
    ? await db.query<GroupRow>(`SELECT ${COLUMNS} FROM namespaces WHERE id = $1`, [ref.id])
    : await db.query<GroupRow>(`SELECT ${COLUMNS} FROM namespaces WHERE lower(full_path) = lower($1)`, [
        ref.fullPath,
      ]);
  return rows[0];
}

export async function findGroupById(db: Queryable, id: number): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(`SELECT ${COLUMNS} FROM namespaces WHERE id = $1`, [id]);
  return rows[0];
}

/** Writes a group as the groups service last described it (personal namespaces are not kept). */
export async function upsertGroup(db: Queryable, s: groupEvents.NamespaceSnapshot): Promise<void> {
  if (s.kind !== "group") return;
  await db.query(
    `INSERT INTO namespaces (id, parent_id, traversal_ids, full_path, name, visibility_level)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET parent_id = EXCLUDED.parent_id, traversal_ids = EXCLUDED.traversal_ids,
       full_path = EXCLUDED.full_path, name = EXCLUDED.name, visibility_level = EXCLUDED.visibility_level,
       updated_at = now()`,
    [
      s.id,
      s.parentId || null,
      s.traversalIds.length ? s.traversalIds : [s.id],
      s.fullPath,
      s.name,
      s.visibilityLevel,
    ],
  );
}

/**
 * A move or rename changes the paths and ancestry of every group below: they are rebuilt from the
 * moved group's new row (their own part of the path and of traversal_ids is kept).
 */
export async function rebuildBelow(db: Queryable, id: number): Promise<void> {
  await db.query(
    `WITH RECURSIVE tree AS (
       SELECT id, traversal_ids, full_path FROM namespaces WHERE id = $1
       UNION ALL
       SELECT c.id, t.traversal_ids || c.id, t.full_path || '/' || split_part(c.full_path, '/', array_length(c.traversal_ids, 1))
         FROM namespaces c JOIN tree t ON c.parent_id = t.id)
     UPDATE namespaces n SET traversal_ids = tree.traversal_ids, full_path = tree.full_path, updated_at = now()
       FROM tree WHERE n.id = tree.id AND n.id <> $1`,
    [id],
  );
}

/** A removed group goes with its links, sync state, memberships and shares. */
export async function deleteGroup(db: Queryable, id: number): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM namespaces WHERE id = $1 RETURNING id),
          links AS (DELETE FROM ldap_group_links WHERE group_id = $1),
          syncs AS (DELETE FROM group_syncs WHERE group_id = $1),
          members AS (DELETE FROM group_members WHERE namespace_id = $1)
     DELETE FROM group_group_links WHERE shared_group_id = $1 OR shared_with_group_id = $1`,
    [id],
  );
}

/**
 * The caller's access to a group through memberships of it or its ancestors and through shares of
 * them with groups the caller is a direct member of (capped at the share's level), GitLab's
 * max_member_access. Expired memberships and shares count for nothing; a blocked user has none.
 */
export async function accessOf(db: Queryable, group: GroupRow, userId: number): Promise<number> {
  if (!userId) return 0;
  const { rows } = await db.query<{ level: number }>(
    `SELECT COALESCE(max(level), 0)::int AS level FROM (
       SELECT m.access_level AS level FROM group_members m
        WHERE m.user_id = $2 AND m.namespace_id = ANY($1::bigint[])
          AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
       UNION ALL
       SELECT LEAST(l.group_access, m.access_level) FROM group_group_links l
         JOIN group_members m ON m.namespace_id = l.shared_with_group_id AND m.user_id = $2
        WHERE l.shared_group_id = ANY($1::bigint[])
          AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
          AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})) a
      WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.state <> 'active')`,
    [group.traversal_ids, userId],
  );
  return rows[0]!.level;
}

/** Whether the user is a member of a group below this one (a private group shows itself to them). */
export async function memberBelow(db: Queryable, group: GroupRow, userId: number): Promise<boolean> {
  if (!userId) return false;
  const { rows } = await db.query(
    `SELECT 1 FROM group_members m JOIN namespaces n ON n.id = m.namespace_id
      WHERE m.user_id = $2 AND n.traversal_ids @> ARRAY[$1::bigint]
        AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY}) LIMIT 1`,
    [group.id, userId],
  );
  return rows.length > 0;
}
