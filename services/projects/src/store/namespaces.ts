import type { Queryable } from "@canopy/kit";
import type { groupEvents } from "@canopy/protos";

/** The copy of a namespace (a group or a user's personal namespace) this service keeps. */
export interface NamespaceRow {
  id: number;
  kind: "group" | "user";
  owner_id: number | null;
  parent_id: number | null;
  traversal_ids: number[];
  path: string;
  name: string;
  full_path: string;
  full_name: string;
  visibility_level: number;
  /** "YYYY-MM-DD" or null. */
  marked_for_deletion_on: string | null;
  share_with_group_lock: boolean;
  /** A group's project_creation_level: 0 noone, 1 maintainer, 2 developer (migration 0004). */
  project_creation_level: number;
}

const COLUMNS = `id::int, kind, owner_id::int, parent_id::int, traversal_ids::int[] AS traversal_ids, path,
  name, full_path, full_name, visibility_level, to_char(marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on,
  share_with_group_lock, project_creation_level`;

/** The snapshot's values in the column order of NAMESPACE_INSERT. */
const valuesOf = (s: groupEvents.NamespaceSnapshot) => [
  s.id,
  s.kind,
  s.ownerId || null,
  s.parentId || null,
  s.traversalIds.length ? s.traversalIds : [s.id],
  s.path,
  s.name,
  s.fullPath,
  s.fullName,
  s.visibilityLevel,
  s.markedForDeletionOn || null,
  // Absent in events older than the field: a new copy takes the default, an existing one keeps its own.
  s.projectCreationLevel ?? null,
  s.shareWithGroupLock,
];

const NAMESPACE_INSERT = `INSERT INTO namespaces (id, kind, owner_id, parent_id, traversal_ids, path, name, full_path,
                         full_name, visibility_level, marked_for_deletion_on, project_creation_level,
                         share_with_group_lock)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12::smallint, 2), $13`;

/** Writes a namespace as the groups service last described it. */
export async function upsertNamespace(db: Queryable, s: groupEvents.NamespaceSnapshot): Promise<void> {
  await db.query(
    `${NAMESPACE_INSERT}
     ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, owner_id = EXCLUDED.owner_id,
       parent_id = EXCLUDED.parent_id, traversal_ids = EXCLUDED.traversal_ids, path = EXCLUDED.path,
       name = EXCLUDED.name, full_path = EXCLUDED.full_path, full_name = EXCLUDED.full_name,
       visibility_level = EXCLUDED.visibility_level, marked_for_deletion_on = EXCLUDED.marked_for_deletion_on,
       project_creation_level = COALESCE($12::smallint, namespaces.project_creation_level),
       share_with_group_lock = EXCLUDED.share_with_group_lock, updated_at = now()`,
    valuesOf(s),
  );
}

/**
 * A namespace as the groups service answered it a moment ago (POST /projects), written only when
 * there is no copy yet and the namespace was not removed since: the events stay the authority.
 */
export async function insertNamespaceIfMissing(
  db: Queryable,
  s: groupEvents.NamespaceSnapshot,
): Promise<void> {
  await db.query(
    `${NAMESPACE_INSERT} WHERE NOT EXISTS (SELECT 1 FROM removed_namespaces WHERE id = $1)
     ON CONFLICT (id) DO NOTHING`,
    valuesOf(s),
  );
}

/**
 * A republished snapshot (the groups service's backfill): the namespace as it is, applied as an
 * upsert, any number of times. Every namespace gets its own, so only this one's projects follow
 * its traversal_ids here (those below follow their own namespace's snapshot).
 */
export async function applyNamespaceSnapshot(db: Queryable, s: groupEvents.NamespaceSnapshot): Promise<void> {
  await upsertNamespace(db, s);
  await db.query(
    `UPDATE projects p SET traversal_ids = n.traversal_ids
       FROM namespaces n
      WHERE n.id = $1 AND p.namespace_id = n.id AND p.traversal_ids IS DISTINCT FROM n.traversal_ids`,
    [s.id],
  );
}

/**
 * After a group moved or was renamed: every namespace below it takes the group's new ancestry
 * (its traversal_ids from the group on are kept, the prefix before it replaced), its full path and
 * name are rebuilt from its ancestors' rows, and the projects below take their namespace's new
 * traversal_ids. Order-independent and idempotent: it reads only the group's current row.
 */
export async function rebuildBelow(db: Queryable, groupId: number): Promise<void> {
  await db.query(
    `UPDATE namespaces d
        SET traversal_ids = g.traversal_ids || d.traversal_ids[array_position(d.traversal_ids, g.id) + 1:]
       FROM namespaces g
      WHERE g.id = $1 AND d.traversal_ids @> ARRAY[g.id] AND d.id <> g.id`,
    [groupId],
  );
  await db.query(
    `UPDATE namespaces d
        SET full_path = f.full_path, full_name = f.full_name
       FROM (SELECT d2.id,
                    string_agg(a.path, '/' ORDER BY t.ord) AS full_path,
                    string_agg(a.name, ' / ' ORDER BY t.ord) AS full_name
               FROM namespaces d2
               CROSS JOIN LATERAL unnest(d2.traversal_ids) WITH ORDINALITY t(id, ord)
               JOIN namespaces a ON a.id = t.id
              WHERE d2.traversal_ids @> ARRAY[$1::bigint] AND d2.id <> $1
              GROUP BY d2.id) f
      WHERE d.id = f.id`,
    [groupId],
  );
  await db.query(
    `UPDATE projects p SET traversal_ids = n.traversal_ids
       FROM namespaces n
      WHERE n.id = p.namespace_id AND n.traversal_ids @> ARRAY[$1::bigint]
        AND p.traversal_ids IS DISTINCT FROM n.traversal_ids`,
    [groupId],
  );
}

export async function findNamespaceById(db: Queryable, id: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(`SELECT ${COLUMNS} FROM namespaces WHERE id = $1`, [id]);
  return rows[0];
}

/** The user's personal namespace. */
export async function findUserNamespace(db: Queryable, userId: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(
    `SELECT ${COLUMNS} FROM namespaces WHERE owner_id = $1 AND kind = 'user'`,
    [userId],
  );
  return rows[0];
}

/** True when the namespace has a subgroup with this path (projects and subgroups share routes). */
export async function subgroupPathTaken(db: Queryable, namespaceId: number, path: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "SELECT 1 FROM namespaces WHERE parent_id = $1 AND lower(path) = lower($2)",
    [namespaceId, path],
  );
  return Boolean(rowCount);
}

export async function deleteNamespace(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM group_members WHERE namespace_id = $1", [id]);
  await db.query("DELETE FROM group_group_links WHERE shared_group_id = $1 OR shared_with_group_id = $1", [
    id,
  ]);
  await db.query("DELETE FROM project_group_links WHERE group_id = $1", [id]);
  await db.query("DELETE FROM namespaces WHERE id = $1", [id]);
  await db.query("INSERT INTO removed_namespaces (id) VALUES ($1) ON CONFLICT DO NOTHING", [id]);
}
