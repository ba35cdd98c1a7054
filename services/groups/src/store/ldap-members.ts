import { type Queryable, UTC_TODAY } from "@canopy/kit";
import type { CurrentMember } from "../domain/ldap-members";
import { MEMBER_COLUMNS, type MemberRow } from "./members";

/** The group's direct members as the LDAP sync sees them. */
export async function currentMembers(
  db: Queryable,
  groupId: number,
): Promise<(CurrentMember & { row: MemberRow })[]> {
  const { rows } = await db.query<MemberRow & { ldap: boolean; active_owner: boolean }>(
    `SELECT ${MEMBER_COLUMNS}, m.ldap,
            (m.access_level = 50 AND u.state = 'active'
             AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})) AS active_owner
       FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.namespace_id = $1 ORDER BY m.id`,
    [groupId],
  );
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    accessLevel: r.access_level,
    ldap: r.ldap,
    activeOwner: r.active_owner,
    row: r,
  }));
}

/** Owner memberships that give access in the group and its ancestors (the last-owner rule). */
export async function activeOwners(db: Queryable, namespaceIds: number[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
      WHERE m.namespace_id = ANY($1::bigint[]) AND m.access_level = 50
        AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})`,
    [namespaceIds],
  );
  return rows[0]!.n;
}

/** Each user's highest level in `ancestorIds` (GitLab raises a subgroup's LDAP level to it). */
export async function inheritedLevels(
  db: Queryable,
  ancestorIds: number[],
  userIds: number[],
): Promise<Map<number, number>> {
  if (!ancestorIds.length || !userIds.length) return new Map();
  const { rows } = await db.query<{ user_id: number; level: number }>(
    `SELECT user_id::int, max(access_level)::int AS level FROM members
      WHERE namespace_id = ANY($1::bigint[]) AND user_id = ANY($2::bigint[])
        AND (expires_at IS NULL OR expires_at > ${UTC_TODAY})
      GROUP BY user_id`,
    [ancestorIds, userIds],
  );
  return new Map(rows.map((r) => [r.user_id, r.level]));
}

/** Which of `userIds` this service knows (its copy of auth's users). */
export async function knownUsers(db: Queryable, userIds: number[]): Promise<Set<number>> {
  if (!userIds.length) return new Set();
  const { rows } = await db.query<{ id: number }>("SELECT id::int FROM users WHERE id = ANY($1::bigint[])", [
    userIds,
  ]);
  return new Set(rows.map((r) => r.id));
}

/** Claims a generation: true when it is newer than the last applied one (and records it). */
export async function claimGeneration(db: Queryable, groupId: number, generation: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO ldap_member_syncs (namespace_id, generation) VALUES ($1, $2)
     ON CONFLICT (namespace_id) DO UPDATE SET generation = EXCLUDED.generation, applied_at = now()
       WHERE ldap_member_syncs.generation < EXCLUDED.generation`,
    [groupId, generation],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Adds the desired members the group does not have, `ldap`-flagged, in one statement (a first sync
 * adds thousands); a user who became a member meanwhile is skipped. The rows added, in id order.
 */
export async function insertLdapMembers(
  db: Queryable,
  groupId: number,
  members: { userId: number; accessLevel: number }[],
): Promise<MemberRow[]> {
  if (!members.length) return [];
  const { rows } = await db.query<MemberRow>(
    `WITH added AS (
       INSERT INTO members AS m (namespace_id, user_id, access_level, ldap)
       SELECT $1, a.user_id, a.access_level, true
         FROM unnest($2::bigint[], $3::smallint[]) WITH ORDINALITY AS a (user_id, access_level, n) ORDER BY a.n
       ON CONFLICT (namespace_id, user_id) DO NOTHING RETURNING ${MEMBER_COLUMNS})
     SELECT * FROM added ORDER BY id`,
    [groupId, members.map((m) => m.userId), members.map((m) => m.accessLevel)],
  );
  return rows;
}

export async function setLdapMember(
  db: Queryable,
  id: number,
  accessLevel?: number,
): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `UPDATE members m SET ldap = true, access_level = COALESCE($2, m.access_level),
       updated_at = CASE WHEN $2::smallint IS NULL THEN m.updated_at ELSE now() END
      WHERE m.id = $1 RETURNING ${MEMBER_COLUMNS}`,
    [id, accessLevel ?? null],
  );
  return rows[0];
}
