import type { Queryable } from "@canopy/kit";

/** One row of `group_links`, with the date as text. */
export interface GroupLinkRow {
  id: number;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: number;
  /** "YYYY-MM-DD" or null. */
  expires_at: string | null;
}

export const LINK_COLUMNS = `l.id, l.shared_group_id, l.shared_with_group_id, l.group_access,
  to_char(l.expires_at, 'YYYY-MM-DD') AS expires_at`;

/**
 * Inserts the link unless the pair is already linked; undefined then (GitLab's uniqueness
 * validation, answered 409 by the caller). ON CONFLICT keeps two racing shares to one row.
 */
export async function insertGroupLink(
  db: Queryable,
  link: { sharedGroupId: number; sharedWithGroupId: number; groupAccess: number; expiresAt: string | null },
): Promise<GroupLinkRow | undefined> {
  const { rows } = await db.query<GroupLinkRow>(
    `INSERT INTO group_links AS l (shared_group_id, shared_with_group_id, group_access, expires_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (shared_group_id, shared_with_group_id) DO NOTHING
     RETURNING ${LINK_COLUMNS}`,
    [link.sharedGroupId, link.sharedWithGroupId, link.groupAccess, link.expiresAt],
  );
  return rows[0];
}

export async function findGroupLink(
  db: Queryable,
  sharedGroupId: number,
  sharedWithGroupId: number,
): Promise<GroupLinkRow | undefined> {
  const { rows } = await db.query<GroupLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM group_links l WHERE l.shared_group_id = $1 AND l.shared_with_group_id = $2`,
    [sharedGroupId, sharedWithGroupId],
  );
  return rows[0];
}

/** Removes the link; undefined when another request removed it first. */
export async function deleteGroupLink(
  db: Queryable,
  sharedGroupId: number,
  sharedWithGroupId: number,
): Promise<GroupLinkRow | undefined> {
  const { rows } = await db.query<GroupLinkRow>(
    `DELETE FROM group_links l WHERE l.shared_group_id = $1 AND l.shared_with_group_id = $2
     RETURNING ${LINK_COLUMNS}`,
    [sharedGroupId, sharedWithGroupId],
  );
  return rows[0];
}
