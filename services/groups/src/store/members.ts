import { type Queryable, UTC_TODAY } from "@canopy/kit";

export interface MemberRow {
  id: number;
  namespace_id: number;
  user_id: number;
  access_level: number;
  /** "YYYY-MM-DD" or null. */
  expires_at: string | null;
  created_by_id: number | null;
  created_at: Date;
  updated_at: Date;
}

export const MEMBER_COLUMNS = `m.id, m.namespace_id, m.user_id, m.access_level,
  to_char(m.expires_at, 'YYYY-MM-DD') AS expires_at, m.created_by_id, m.created_at, m.updated_at`;

export async function insertMember(
  db: Queryable,
  m: {
    namespaceId: number;
    userId: number;
    accessLevel: number;
    expiresAt?: string | null;
    createdById?: number;
  },
): Promise<MemberRow> {
  const { rows } = await db.query<MemberRow>(
    `INSERT INTO members AS m (namespace_id, user_id, access_level, expires_at, created_by_id)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${MEMBER_COLUMNS}`,
    [m.namespaceId, m.userId, m.accessLevel, m.expiresAt ?? null, m.createdById ?? null],
  );
  return rows[0]!;
}

/** Removes every membership of a user (their account is gone) and returns what was removed. */
export async function deleteMembershipsOf(db: Queryable, userId: number): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `DELETE FROM members m WHERE m.user_id = $1 RETURNING ${MEMBER_COLUMNS}`,
    [userId],
  );
  return rows;
}

/** The user's direct membership row in the namespace, whatever its level (minimal access too). */
export async function findMembership(
  db: Queryable,
  namespaceId: number,
  userId: number,
): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.namespace_id = $1 AND m.user_id = $2`,
    [namespaceId, userId],
  );
  return rows[0];
}

/**
 * The highest level of the user's direct group memberships, 0 without any (GitLab's
 * `members.non_request.maximum(:access_level)`; Canopy has no access requests). Expired rows count
 * for nothing, as everywhere here: GitLab's daily removal takes them away.
 */
export async function highestAccessLevelOf(db: Queryable, userId: number): Promise<number> {
  const { rows } = await db.query<{ level: number }>(
    `SELECT COALESCE(max(access_level), 0)::int AS level FROM members
      WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > ${UTC_TODAY})`,
    [userId],
  );
  return rows[0]?.level ?? 0;
}

/** The user's highest membership in one of `ancestorIds`, with that group's name (for the message). */
export async function highestAncestorMembership(
  db: Queryable,
  ancestorIds: number[],
  userId: number,
): Promise<{ accessLevel: number; groupName: string } | undefined> {
  if (!ancestorIds.length) return undefined;
  const { rows } = await db.query<{ access_level: number; name: string }>(
    `SELECT m.access_level, n.name FROM members m JOIN namespaces n ON n.id = m.namespace_id
      WHERE m.user_id = $1 AND m.namespace_id = ANY($2::bigint[])
      ORDER BY m.access_level DESC, m.id LIMIT 1`,
    [userId, ancestorIds],
  );
  return rows[0] && { accessLevel: rows[0].access_level, groupName: rows[0].name };
}

/**
 * Owner memberships in `namespaceIds` (a group and its ancestors) other than `exceptId` that still
 * give access: active user, not expired. The last-owner rule counts these.
 */
export async function countOtherOwners(
  db: Queryable,
  namespaceIds: number[],
  exceptId: number,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
      WHERE m.namespace_id = ANY($1::bigint[]) AND m.access_level = 50 AND m.id <> $2
        AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})`,
    [namespaceIds, exceptId],
  );
  return rows[0]!.n;
}

/** Undefined when the row is gone (the expired-membership removal takes rows without the tree lock). */
export async function updateMembership(
  db: Queryable,
  id: number,
  change: { accessLevel: number; expiresAt: string | null },
): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `UPDATE members m SET access_level = $2, expires_at = $3, updated_at = now()
      WHERE m.id = $1 RETURNING ${MEMBER_COLUMNS}`,
    [id, change.accessLevel, change.expiresAt],
  );
  return rows[0];
}

export async function deleteMembership(db: Queryable, id: number): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `DELETE FROM members m WHERE m.id = $1 RETURNING ${MEMBER_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/** Removes the user's direct memberships in the descendants of `groupId` and returns them. */
export async function deleteDescendantMemberships(
  db: Queryable,
  groupId: number,
  userId: number,
): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `DELETE FROM members m USING namespaces n
      WHERE m.user_id = $2 AND n.id = m.namespace_id AND $1::bigint = ANY(n.traversal_ids) AND n.id <> $1
      RETURNING ${MEMBER_COLUMNS}`,
    [groupId, userId],
  );
  return rows;
}
