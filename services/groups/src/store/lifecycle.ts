import { type Queryable, UTC_TODAY } from "@canopy/kit";
import { MEMBER_COLUMNS, type MemberRow } from "./members";
import { NAMESPACE_COLUMNS, type NamespaceRow } from "./namespaces";

/**
 * SQL of deletion, restore and transfer. A subtree is one range of the traversal_ids index: the
 * rows with T <= traversal_ids < T' where T' is T with its last element plus one (see 0001).
 */
const inSubtree = (n: string, t: string) =>
  `(${n}.traversal_ids >= ${t}::bigint[] AND ${n}.traversal_ids <
     (${t}::bigint[])[1:array_length(${t}::bigint[], 1) - 1] || ((${t}::bigint[])[array_length(${t}::bigint[], 1)] + 1))`;

export type RemovalReason = "delete" | "permanent" | "adjourned";

/** Marks the group for deletion today (UTC) by `userId`; the caller holds the tree's lock. */
export async function markForDeletion(db: Queryable, id: number, userId: number): Promise<NamespaceRow> {
  const { rows } = await db.query<NamespaceRow>(
    `UPDATE namespaces n SET marked_for_deletion_on = ${UTC_TODAY}, deletion_scheduled_by_id = $2
      WHERE n.id = $1 RETURNING ${NAMESPACE_COLUMNS}`,
    [id, userId],
  );
  return rows[0]!;
}

/** Clears the mark and drops a removal the scheduler may already have queued for it. */
export async function clearDeletionMark(db: Queryable, id: number): Promise<NamespaceRow> {
  await db.query("DELETE FROM group_removals WHERE namespace_id = $1 AND reason = 'adjourned'", [id]);
  const { rows } = await db.query<NamespaceRow>(
    `UPDATE namespaces n SET marked_for_deletion_on = NULL, deletion_scheduled_by_id = NULL
      WHERE n.id = $1 RETURNING ${NAMESPACE_COLUMNS}`,
    [id],
  );
  return rows[0]!;
}

/**
 * Hides the group and its subtree (404 from now on) and queues its removal. The caller holds the
 * tree's lock, so no subgroup appears below it meanwhile.
 */
export async function requestRemoval(
  db: Queryable,
  group: Pick<NamespaceRow, "id" | "traversal_ids">,
  reason: RemovalReason,
  userId: number,
): Promise<void> {
  await db.query(`UPDATE namespaces n SET pending_removal = true WHERE ${inSubtree("n", "$1")}`, [
    group.traversal_ids,
  ]);
  await db.query(
    `INSERT INTO group_removals (namespace_id, reason, requested_by_id) VALUES ($1, $2, $3)
     ON CONFLICT (namespace_id) DO UPDATE SET reason = EXCLUDED.reason, not_before = now()`,
    [group.id, reason, userId],
  );
}

/**
 * Queues the removal of every group marked at least `periodDays` ago (UTC). Safe on any number of
 * replicas at once: a queued group is queued once (the primary key), whoever inserts it, and a group
 * another replica is removing right now is skipped (its row is locked or already gone), since
 * queueing it would fail on the foreign key the moment that removal commits.
 */
export async function queueDueRemovals(db: Queryable, periodDays: number): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO group_removals (namespace_id, reason, requested_by_id)
     SELECT n.id, 'adjourned', n.deletion_scheduled_by_id FROM namespaces n
      WHERE n.marked_for_deletion_on IS NOT NULL AND n.kind = 'group'
        AND n.marked_for_deletion_on <= ${UTC_TODAY} - $1::int
        FOR KEY SHARE OF n SKIP LOCKED
     ON CONFLICT (namespace_id) DO NOTHING`,
    [periodDays],
  );
  return rowCount ?? 0;
}

export interface RemovalJob {
  namespace_id: number;
  reason: RemovalReason;
}

/** One due removal, locked for this transaction; others' locked jobs are skipped. */
export async function claimRemoval(db: Queryable): Promise<RemovalJob | undefined> {
  const { rows } = await db.query<RemovalJob>(
    `SELECT namespace_id, reason FROM group_removals WHERE not_before <= now()
      ORDER BY not_before, requested_at, namespace_id LIMIT 1 FOR UPDATE SKIP LOCKED`,
  );
  return rows[0];
}

/** Puts a claimed job off for a moment (its tree is busy). */
export async function postponeRemoval(db: Queryable, id: number): Promise<void> {
  await db.query(
    `UPDATE group_removals SET not_before = now() + interval '1 second', attempts = attempts + 1
      WHERE namespace_id = $1`,
    [id],
  );
}

/** True when the group is marked `periodDays` ago (UTC) or earlier. */
export async function markIsDue(db: Queryable, id: number, periodDays: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM namespaces WHERE id = $1 AND marked_for_deletion_on <= ${UTC_TODAY} - $2::int`,
    [id, periodDays],
  );
  return rowCount === 1;
}

export async function dropRemoval(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM group_removals WHERE namespace_id = $1", [id]);
}

/** The root's lock if nobody holds it now (true), without waiting. */
export async function tryLockRoot(db: Queryable, rootId: number): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM namespaces WHERE id = $1 FOR UPDATE SKIP LOCKED", [
    rootId,
  ]);
  return rowCount === 1;
}

/**
 * Deletes the subtree in one statement (the parent_id check runs at its end, so order within it
 * does not matter) and returns the removed rows deepest first, as their events are recorded.
 * Memberships, links, custom attributes, avatars, push rules and queued removals go by cascade.
 */
export async function deleteSubtree(db: Queryable, traversal: number[]): Promise<NamespaceRow[]> {
  const { rows } = await db.query<NamespaceRow>(
    `DELETE FROM namespaces n WHERE ${inSubtree("n", "$1")} RETURNING ${NAMESPACE_COLUMNS}`,
    [traversal],
  );
  return rows.sort((a, b) => b.traversal_ids.length - a.traversal_ids.length || a.id - b.id);
}

/** Levels below the group (0 for a leaf): what a move adds to the new parent's depth. */
export async function subtreeHeight(db: Queryable, traversal: number[]): Promise<number> {
  const { rows } = await db.query<{ height: number }>(
    `SELECT COALESCE(max(array_length(n.traversal_ids, 1)), 0)::int - $2::int AS height
       FROM namespaces n WHERE ${inSubtree("n", "$1")}`,
    [traversal, traversal.length],
  );
  return Math.max(rows[0]?.height ?? 0, 0);
}

/**
 * Moves the group under `parent` (or to the top): one statement rewrites traversal_ids, full_path
 * and full_name of the whole subtree, and lowers any visibility above the new parent's (GitLab's
 * Groups::TransferService does the same). The caller holds both trees' locks.
 */
export async function moveSubtree(
  db: Queryable,
  group: Pick<NamespaceRow, "id" | "traversal_ids" | "full_path" | "full_name" | "path" | "name">,
  parent:
    Pick<NamespaceRow, "id" | "traversal_ids" | "full_path" | "full_name" | "visibility_level"> | undefined,
): Promise<NamespaceRow> {
  const newFullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
  const newFullName = parent ? `${parent.full_name} / ${group.name}` : group.name;
  const { rows } = await db.query<NamespaceRow>(
    `UPDATE namespaces n SET
        traversal_ids = $2::bigint[] || n.traversal_ids[$3::int:],
        full_path = $4 || substr(n.full_path, $5::int + 1),
        full_name = $6 || substr(n.full_name, $7::int + 1),
        visibility_level = LEAST(n.visibility_level, $8::smallint),
        parent_id = CASE WHEN n.id = $9 THEN $10::bigint ELSE n.parent_id END,
        updated_at = CASE WHEN n.id = $9 THEN now() ELSE n.updated_at END
      WHERE ${inSubtree("n", "$1")}
      RETURNING ${NAMESPACE_COLUMNS}`,
    [
      group.traversal_ids,
      [...(parent?.traversal_ids ?? []), group.id],
      group.traversal_ids.length + 1,
      newFullPath,
      group.full_path.length,
      newFullName,
      // Characters, as substr counts them (a name may hold emoji outside the BMP).
      [...group.full_name].length,
      parent?.visibility_level ?? 20,
      group.id,
      parent?.id ?? null,
    ],
  );
  return rows.find((r) => r.id === group.id)!;
}

/** True when the group has a direct member with Owner access (GitLab's `group.owners`). */
export async function hasDirectOwner(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
      WHERE m.namespace_id = $1 AND m.access_level = 50
        AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY}) LIMIT 1`,
    [id],
  );
  return rowCount === 1;
}

/**
 * Makes the user a direct Owner of the group (GitLab's add_owner: a lower membership is raised).
 * Returns the row and the level it had before (0 when it is new).
 */
export async function makeDirectOwner(
  db: Queryable,
  groupId: number,
  userId: number,
): Promise<{ member: MemberRow; oldAccessLevel: number; oldExpiresAt: string | null }> {
  const { rows: old } = await db.query<{ access_level: number; expires_at: string | null }>(
    `SELECT access_level, to_char(expires_at, 'YYYY-MM-DD') AS expires_at FROM members
      WHERE namespace_id = $1 AND user_id = $2 FOR UPDATE`,
    [groupId, userId],
  );
  const { rows } = await db.query<MemberRow>(
    `INSERT INTO members AS m (namespace_id, user_id, access_level, created_by_id) VALUES ($1, $2, 50, $2)
     ON CONFLICT (namespace_id, user_id) DO UPDATE SET access_level = 50, expires_at = NULL, updated_at = now()
     RETURNING ${MEMBER_COLUMNS}`,
    [groupId, userId],
  );
  return {
    member: rows[0]!,
    oldAccessLevel: old[0]?.access_level ?? 0,
    oldExpiresAt: old[0]?.expires_at ?? null,
  };
}
