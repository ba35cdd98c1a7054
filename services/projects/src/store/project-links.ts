import type { Queryable } from "@canopy/kit";
import { groupReadableSql } from "./access";

/** A share of a project with a group (GitLab's ProjectGroupLink). */
export interface ProjectLinkRow {
  id: number;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null;
  updated_at: Date;
}

export const LINK_COLUMNS = `id::int, project_id::int, group_id::int, group_access,
  to_char(expires_at, 'YYYY-MM-DD') AS expires_at, updated_at`;

export async function findProjectLink(
  db: Queryable,
  projectId: number,
  groupId: number,
): Promise<ProjectLinkRow | undefined> {
  const { rows } = await db.query<ProjectLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM project_group_links WHERE project_id = $1 AND group_id = $2`,
    [projectId, groupId],
  );
  return rows[0];
}

/** Inserts the link; undefined when the project is already shared with the group. */
export async function insertProjectLink(
  db: Queryable,
  l: {
    projectId: number;
    groupId: number;
    groupAccess: number;
    expiresAt: string | null;
    createdById: number;
  },
): Promise<ProjectLinkRow | undefined> {
  const { rows } = await db.query<ProjectLinkRow>(
    `INSERT INTO project_group_links (project_id, group_id, group_access, expires_at, created_by_id)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, group_id) DO NOTHING RETURNING ${LINK_COLUMNS}`,
    [l.projectId, l.groupId, l.groupAccess, l.expiresAt, l.createdById],
  );
  return rows[0];
}

export async function deleteProjectLink(db: Queryable, id: number): Promise<ProjectLinkRow | undefined> {
  const { rows } = await db.query<ProjectLinkRow>(
    `DELETE FROM project_group_links WHERE id = $1 RETURNING ${LINK_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/**
 * The group `groupId` when the caller may read it (read_group: its visibility reaches them, or they
 * are a member of it, an ancestor or a descendant); administrators read every group.
 */
export async function readableGroup(
  db: Queryable,
  groupId: number,
  viewer: { userId: number; lowestVisibleLevel: number },
): Promise<{ id: number; traversal_ids: number[] } | undefined> {
  const { rows } = await db.query<{ id: number; traversal_ids: number[] }>(
    `SELECT g.id::int, g.traversal_ids::int[] AS traversal_ids FROM namespaces g
      WHERE g.id = $1 AND g.kind = 'group' AND ${groupReadableSql("g", "$2::bigint", "$3::int")}`,
    [groupId, viewer.userId, viewer.lowestVisibleLevel],
  );
  return rows[0];
}

/** Whether sharing is locked for a project in these namespaces (a locked group locks all below). */
export async function shareLocked(db: Queryable, traversalIds: number[]): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(
    `SELECT COALESCE(bool_or(share_with_group_lock), false) AS locked FROM namespaces WHERE id = ANY($1::bigint[])`,
    [traversalIds],
  );
  return rows[0]!.locked;
}

/** Shares of projects with groups after `afterId` in id order, locked while their snapshots are recorded. */
export async function lockProjectLinksAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<ProjectLinkRow[]> {
  const { rows } = await db.query<ProjectLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM project_group_links WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
    [afterId, limit],
  );
  return rows;
}
