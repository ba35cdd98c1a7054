import {
  memberFilterSql,
  memberListReads,
  UTC_TODAY,
  type MemberFilter,
  type MemberListSql,
  type MemberListViewer,
  type MemberUserColumns,
  type Queryable,
} from "@canopy/kit";
import { groupReadableSql } from "./access";

/**
 * The member lists of a project (GitLab's MembersFinder with direct, inherited and invited groups):
 * - direct: the project's own membership rows (unexpired);
 * - all: those, the rows of the project's group and its ancestors, and the rows of groups the
 *   project is shared with and of their ancestors (GitLab's members_with_parents), capped at the
 *   link's level (expired links give nothing) — then ONE entry per user, the highest level.
 * Direct rows come first by membership id, then the others by user id: the copies of group
 * memberships have no ids of their own here.
 *
 * Members of an invited group the caller may not read are left out of `all` unless the caller
 * manages the project's members: they would tell the caller who is in a group they cannot see.
 *
 * The filters and the reading of a page and its count are the same for groups: the kit's
 * members/member-lists.ts.
 */

export interface ProjectMemberRow extends MemberUserColumns {
  /** 0 for inherited and invited entries. */
  membership_id: number;
  source_type: "project" | "group";
  source_id: number;
  access_level: number;
  expires_at: string | null;
  created_at: Date;
  updated_at: Date;
}

const UNEXPIRED = (alias: string) => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ${UTC_TODAY})`;

/** The candidates of `all` for project $1 with the caller ($2 user, $3 lowest level, $4 manages). */
const allCandidatesSql = `
  p AS (SELECT id, traversal_ids FROM projects WHERE id = $1),
  candidates AS (
    SELECT pm.id, 0 AS kind, 'project' AS source_type, pm.project_id AS source_id, pm.user_id,
           pm.access_level, pm.expires_at, pm.created_by_id, pm.created_at, pm.updated_at
      FROM project_members pm, p WHERE pm.project_id = p.id AND ${UNEXPIRED("pm")}
    UNION ALL
    SELECT 0, 1, 'group', m.namespace_id, m.user_id, m.access_level, m.expires_at, m.created_by_id,
           m.created_at, m.created_at
      FROM group_members m, p
     WHERE m.namespace_id = ANY(p.traversal_ids) AND m.access_level >= 10
       AND ${UNEXPIRED("m")}
    UNION ALL
    SELECT 0, 1, 'group', l.group_id, m.user_id, LEAST(m.access_level, l.group_access), m.expires_at,
           m.created_by_id, m.created_at, m.created_at
      FROM p, project_group_links l
      JOIN namespaces inv ON inv.id = l.group_id
      JOIN group_members m ON m.namespace_id = ANY(inv.traversal_ids)
     WHERE l.project_id = p.id AND m.access_level >= 10 AND ${UNEXPIRED("l")} AND ${UNEXPIRED("m")}
       AND ($4::boolean OR ${groupReadableSql("inv", "$2::bigint", "$3::int")})
  ),
  best AS (
    SELECT DISTINCT ON (user_id) * FROM candidates ORDER BY user_id, access_level DESC, kind, id
  )`;

const SELECT_ROW = `
  SELECT b.id::int AS membership_id, b.source_type, b.source_id::int, b.access_level,
         to_char(b.expires_at, 'YYYY-MM-DD') AS expires_at, b.created_at, b.updated_at,
         u.id::int AS user_id, u.username, u.name, u.state, u.avatar_url, u.email,
         c.id::int AS created_by_id, c.username AS created_by_username, c.name AS created_by_name,
         c.state AS created_by_state, c.avatar_url AS created_by_avatar_url`;

/** Direct rows first by membership id, then the others by user id. */
const reads = memberListReads<ProjectMemberRow>({ select: SELECT_ROW, orderBy: "b.kind, b.id, b.user_id" });

type Scope = "direct" | "all";

function listSql(scope: Scope, projectId: number, viewer: MemberListViewer, f: MemberFilter): MemberListSql {
  if (scope === "direct") {
    const filter = memberFilterSql(f, 2);
    return {
      with: `WITH best AS (
        SELECT pm.id, 0 AS kind, 'project' AS source_type, pm.project_id AS source_id, pm.user_id,
               pm.access_level, pm.expires_at, pm.created_by_id, pm.created_at, pm.updated_at
          FROM project_members pm WHERE pm.project_id = $1 AND ${UNEXPIRED("pm")})`,
      from: `FROM best b JOIN users u ON u.id = b.user_id LEFT JOIN users c ON c.id = b.created_by_id
             WHERE true ${filter.where}`,
      values: [projectId, ...filter.values],
    };
  }
  const filter = memberFilterSql(f, 5);
  return {
    with: `WITH ${allCandidatesSql}`,
    from: `FROM best b JOIN users u ON u.id = b.user_id LEFT JOIN users c ON c.id = b.created_by_id
           WHERE true ${filter.where}`,
    values: [projectId, viewer.userId, viewer.lowestVisibleLevel, viewer.managesMembers, ...filter.values],
  };
}

/** One page of a member list, and the count of the whole list (counted up to COUNT_CAP + 1). */
export async function listProjectMembers(
  db: Queryable,
  scope: Scope,
  projectId: number,
  viewer: MemberListViewer,
  filter: MemberFilter,
  window: { limit: number; offset: number },
): Promise<{ rows: ProjectMemberRow[]; counted: number }> {
  return reads.pageAndCount(db, listSql(scope, projectId, viewer, filter), window);
}

/** One user's entry in a member list, if they are in it. */
export async function findListedProjectMember(
  db: Queryable,
  scope: Scope,
  projectId: number,
  viewer: MemberListViewer,
  userId: number,
): Promise<ProjectMemberRow | undefined> {
  const q = listSql(scope, projectId, viewer, { userIds: [userId] });
  return (await reads.page(db, q, { limit: 1, offset: 0 }))[0];
}

/**
 * The highest level of the user's direct project memberships, 0 without any (GitLab's
 * `members.non_request.maximum(:access_level)`, project half). Expired rows count for nothing: GitLab's
 * daily removal takes them away.
 */
export async function highestProjectAccessLevelOf(db: Queryable, userId: number): Promise<number> {
  const { rows } = await db.query<{ level: number }>(
    `SELECT COALESCE(max(access_level), 0)::int AS level FROM project_members
      WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > ${UTC_TODAY})`,
    [userId],
  );
  return rows[0]?.level ?? 0;
}

/** A direct membership row (expired ones too: they are still rows to change or remove). */
export interface MembershipRow {
  id: number;
  project_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  updated_at: Date;
}

export const MEMBERSHIP_COLUMNS = `id::int, project_id::int, user_id::int, access_level,
  to_char(expires_at, 'YYYY-MM-DD') AS expires_at, created_by_id::int, updated_at`;

export async function findMembership(
  db: Queryable,
  projectId: number,
  userId: number,
  lock = false,
): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM project_members WHERE project_id = $1 AND user_id = $2
      ${lock ? "FOR UPDATE" : ""}`,
    [projectId, userId],
  );
  return rows[0];
}

/** Inserts a membership; undefined when the user is already a member (a concurrent add). */
export async function insertMembership(
  db: Queryable,
  m: {
    projectId: number;
    userId: number;
    accessLevel: number;
    expiresAt: string | null;
    createdById: number;
  },
): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `INSERT INTO project_members (project_id, user_id, access_level, expires_at, created_by_id)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, user_id) DO NOTHING
     RETURNING ${MEMBERSHIP_COLUMNS}`,
    [m.projectId, m.userId, m.accessLevel, m.expiresAt, m.createdById],
  );
  return rows[0];
}

export async function updateMembership(
  db: Queryable,
  id: number,
  m: { accessLevel: number; expiresAt: string | null },
): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `UPDATE project_members SET access_level = $2, expires_at = $3, updated_at = now() WHERE id = $1
     RETURNING ${MEMBERSHIP_COLUMNS}`,
    [id, m.accessLevel, m.expiresAt],
  );
  return rows[0];
}

export async function deleteMembership(db: Queryable, id: number): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `DELETE FROM project_members WHERE id = $1 RETURNING ${MEMBERSHIP_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/**
 * The highest unexpired membership the user holds in the project's group or an ancestor, with that
 * group's name (Member#higher_access_level_than_group).
 */
export async function highestGroupMembership(
  db: Queryable,
  traversalIds: number[],
  userId: number,
): Promise<{ accessLevel: number; groupName: string } | undefined> {
  const { rows } = await db.query<{ access_level: number; name: string }>(
    `SELECT m.access_level, n.name FROM group_members m JOIN namespaces n ON n.id = m.namespace_id
      WHERE m.namespace_id = ANY($1::bigint[]) AND n.kind = 'group' AND m.user_id = $2
        AND ${UNEXPIRED("m")}
      ORDER BY m.access_level DESC, array_length(n.traversal_ids, 1) DESC LIMIT 1`,
    [traversalIds, userId],
  );
  return rows[0] && { accessLevel: rows[0].access_level, groupName: rows[0].name };
}

/** Direct project memberships after `afterId` in id order, locked while their snapshots are recorded. */
export async function lockProjectMembershipsAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM project_members WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
    [afterId, limit],
  );
  return rows;
}
