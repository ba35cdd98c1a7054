import type { Queryable } from "@canopy/kit";
import type { projectEvents } from "@canopy/protos";

/*
 * The copies of who can see a project through the project itself (migration 0013): direct project
 * memberships and shares of projects with groups, as the projects service's events describe them.
 * Every write here is an upsert or a delete that may be applied any number of times. Each answers
 * whether it changed anything (an unchanged copy needs no "copies changed" event).
 */

/** A project membership added, changed or republished. */
export async function upsertProjectMember(
  db: Queryable,
  m: projectEvents.ProjectMembership,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO project_members (project_id, user_id, access_level, expires_at)
     VALUES ($1, $2, $3, NULLIF($4, '')::date)
     ON CONFLICT (project_id, user_id) DO UPDATE
       SET access_level = EXCLUDED.access_level, expires_at = EXCLUDED.expires_at
       WHERE (project_members.access_level, project_members.expires_at)
             IS DISTINCT FROM (EXCLUDED.access_level, EXCLUDED.expires_at)`,
    [m.projectId, m.userId, m.accessLevel, m.expiresAt],
  );
  return Boolean(rowCount);
}

export async function deleteProjectMember(
  db: Queryable,
  projectId: number,
  userId: number,
): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM project_members WHERE project_id = $1 AND user_id = $2", [
    projectId,
    userId,
  ]);
  return Boolean(rowCount);
}

/** A share of a project with a group, created or republished. */
export async function upsertProjectShare(db: Queryable, s: projectEvents.ProjectShared): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO project_shares (project_id, group_id, group_access, expires_at)
     VALUES ($1, $2, $3, NULLIF($4, '')::date)
     ON CONFLICT (project_id, group_id) DO UPDATE
       SET group_access = EXCLUDED.group_access, expires_at = EXCLUDED.expires_at
       WHERE (project_shares.group_access, project_shares.expires_at)
             IS DISTINCT FROM (EXCLUDED.group_access, EXCLUDED.expires_at)`,
    [s.projectId, s.groupId, s.groupAccess, s.expiresAt],
  );
  return Boolean(rowCount);
}

export async function deleteProjectShare(
  db: Queryable,
  projectId: number,
  groupId: number,
): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM project_shares WHERE project_id = $1 AND group_id = $2", [
    projectId,
    groupId,
  ]);
  return Boolean(rowCount);
}

/**
 * A removed project's memberships and shares (the projects service removes them with it and
 * publishes no event of their own). Shares first: a transaction bumps the count generation of
 * scope 0 before any user's (migration 0008).
 */
export async function deleteProjectAccessOf(db: Queryable, projectId: number): Promise<void> {
  await db.query("DELETE FROM project_shares WHERE project_id = $1", [projectId]);
  await db.query("DELETE FROM project_members WHERE project_id = $1", [projectId]);
}

/** A deleted user's project memberships (the projects service forgets them from auth's event). */
export async function deleteProjectMembershipsOf(db: Queryable, userId: number): Promise<void> {
  await db.query("DELETE FROM project_members WHERE user_id = $1", [userId]);
}
