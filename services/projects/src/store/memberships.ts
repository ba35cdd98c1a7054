import type { Queryable } from "@canopy/kit";
import type { groupEvents } from "@canopy/protos";

/** The copies of group memberships and group shares (groups' events; events/groups.ts). */

/** "unchanged" when the copy already had this level and expiry (the creator's first MemberAdded). */
export async function upsertGroupMember(
  db: Queryable,
  m: groupEvents.Membership,
): Promise<void | "unchanged"> {
  const { rows } = await db.query<{ same: boolean }>(
    `SELECT (access_level, expires_at) IS NOT DISTINCT FROM ($3::smallint, $4::date) AS same
       FROM group_members WHERE namespace_id = $1 AND user_id = $2`,
    [m.groupId, m.userId, m.accessLevel, m.expiresAt || null],
  );
  const unchanged = rows[0]?.same === true;
  await db.query(
    `INSERT INTO group_members (namespace_id, user_id, access_level, expires_at, created_by_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (namespace_id, user_id) DO UPDATE
       SET access_level = EXCLUDED.access_level, expires_at = EXCLUDED.expires_at,
           created_by_id = COALESCE(group_members.created_by_id, EXCLUDED.created_by_id)`,
    [m.groupId, m.userId, m.accessLevel, m.expiresAt || null, m.createdById || null],
  );
  if (unchanged) return "unchanged";
}

/** The creator of a group is its Owner from the start (GroupCreated carries them). */
export async function insertCreatorMember(db: Queryable, groupId: number, userId: number): Promise<void> {
  await db.query(
    `INSERT INTO group_members (namespace_id, user_id, access_level) VALUES ($1, $2, 50)
     ON CONFLICT (namespace_id, user_id) DO NOTHING`,
    [groupId, userId],
  );
}

export async function deleteGroupMember(db: Queryable, groupId: number, userId: number): Promise<void> {
  await db.query("DELETE FROM group_members WHERE namespace_id = $1 AND user_id = $2", [groupId, userId]);
}

export async function upsertGroupLink(db: Queryable, l: groupEvents.GroupShared): Promise<void> {
  await db.query(
    `INSERT INTO group_group_links (shared_group_id, shared_with_group_id, group_access, expires_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (shared_group_id, shared_with_group_id) DO UPDATE
       SET group_access = EXCLUDED.group_access, expires_at = EXCLUDED.expires_at`,
    [l.sharedGroupId, l.sharedWithGroupId, l.groupAccess, l.expiresAt || null],
  );
}

export async function deleteGroupLink(db: Queryable, sharedGroupId: number, sharedWithGroupId: number) {
  await db.query("DELETE FROM group_group_links WHERE shared_group_id = $1 AND shared_with_group_id = $2", [
    sharedGroupId,
    sharedWithGroupId,
  ]);
}
