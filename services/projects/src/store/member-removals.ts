import { type Queryable, UTC_TODAY } from "@canopy/kit";
import { LINK_COLUMNS, type ProjectLinkRow } from "./project-links";
import { MEMBERSHIP_COLUMNS, type MembershipRow } from "./project-members";

/**
 * Project memberships and shares removed without a request on the project: a user's memberships
 * below a group they were removed from, and rows past their `expires_at` (GitLab's daily workers).
 */

/** The user's direct memberships in the projects of the group and of its subgroups (GIN index). */
export async function deleteMembershipsBelow(
  db: Queryable,
  groupId: number,
  userId: number,
): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    `DELETE FROM project_members
      WHERE user_id = $2 AND project_id IN (SELECT id FROM projects WHERE traversal_ids @> ARRAY[$1::bigint])
     RETURNING ${MEMBERSHIP_COLUMNS}`,
    [groupId, userId],
  );
  return rows;
}

/** At most `limit` expired memberships, skipping rows another replica holds. */
export async function deleteExpiredMemberships(db: Queryable, limit: number): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    `DELETE FROM project_members WHERE id IN (
       SELECT id FROM project_members WHERE expires_at <= ${UTC_TODAY} ORDER BY expires_at, id LIMIT $1
          FOR UPDATE SKIP LOCKED)
     RETURNING ${MEMBERSHIP_COLUMNS}`,
    [limit],
  );
  return rows;
}

/** At most `limit` expired shares of projects with groups, as above. */
export async function deleteExpiredProjectLinks(db: Queryable, limit: number): Promise<ProjectLinkRow[]> {
  const { rows } = await db.query<ProjectLinkRow>(
    `DELETE FROM project_group_links WHERE id IN (
       SELECT id FROM project_group_links WHERE expires_at <= ${UTC_TODAY} ORDER BY expires_at, id LIMIT $1
          FOR UPDATE SKIP LOCKED)
     RETURNING ${LINK_COLUMNS}`,
    [limit],
  );
  return rows;
}
