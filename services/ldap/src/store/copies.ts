import type { Queryable } from "@canopy/kit";
import type { events, groupEvents } from "@canopy/protos";

/** Users, memberships and shares as their owners' events describe them (idempotent upserts). */

export async function upsertUser(db: Queryable, u: events.UserSnapshot): Promise<void> {
  await db.query(
    `INSERT INTO users (id, username, state, admin, external) VALUES ($1, $2, COALESCE(NULLIF($3, ''), 'active'), $4, $5)
     ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username,
       state = COALESCE(NULLIF($3, ''), users.state), admin = EXCLUDED.admin, external = EXCLUDED.external,
       updated_at = now()`,
    [u.userId, u.username, u.state, u.admin, u.external],
  );
}

export async function setUserState(db: Queryable, id: number, state: string): Promise<void> {
  await db.query("UPDATE users SET state = $2, updated_at = now() WHERE id = $1", [id, state]);
}

export async function deleteUser(db: Queryable, id: number): Promise<void> {
  await db.query(`WITH m AS (DELETE FROM group_members WHERE user_id = $1) DELETE FROM users WHERE id = $1`, [
    id,
  ]);
}

export async function upsertMember(db: Queryable, m: groupEvents.Membership): Promise<void> {
  await db.query(
    `INSERT INTO group_members (namespace_id, user_id, access_level, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (namespace_id, user_id) DO UPDATE SET access_level = EXCLUDED.access_level,
       expires_at = EXCLUDED.expires_at`,
    [m.groupId, m.userId, m.accessLevel, m.expiresAt || null],
  );
}

export async function insertCreatorMember(db: Queryable, groupId: number, userId: number): Promise<void> {
  await db.query(
    `INSERT INTO group_members (namespace_id, user_id, access_level) VALUES ($1, $2, 50)
     ON CONFLICT (namespace_id, user_id) DO NOTHING`,
    [groupId, userId],
  );
}

export async function deleteMember(db: Queryable, groupId: number, userId: number): Promise<void> {
  await db.query("DELETE FROM group_members WHERE namespace_id = $1 AND user_id = $2", [groupId, userId]);
}

export async function upsertShare(db: Queryable, s: groupEvents.GroupShared): Promise<void> {
  await db.query(
    `INSERT INTO group_group_links (shared_group_id, shared_with_group_id, group_access, expires_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (shared_group_id, shared_with_group_id) DO UPDATE SET group_access = EXCLUDED.group_access,
       expires_at = EXCLUDED.expires_at`,
    [s.sharedGroupId, s.sharedWithGroupId, s.groupAccess, s.expiresAt || null],
  );
}

export async function deleteShare(db: Queryable, sharedGroupId: number, sharedWithGroupId: number) {
  await db.query("DELETE FROM group_group_links WHERE shared_group_id = $1 AND shared_with_group_id = $2", [
    sharedGroupId,
    sharedWithGroupId,
  ]);
}
