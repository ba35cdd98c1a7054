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
import { readableSql, readerCtes } from "./access";

/**
 * The member lists of a group (GitLab's MembersFinder):
 * - direct: the group's own membership rows;
 * - all: its rows, its ancestors' rows (inherited downwards through traversal_ids), and the rows of
 *   groups that the group or an ancestor is shared with, capped at the link's level (expired links
 *   give nothing) — then ONE entry per user, the one with the highest level.
 * Minimal-access rows (5) are never listed. Rows are ordered by membership id, GitLab's default.
 *
 * Members of an invited group the caller may not read (a private or internal one they have no
 * access to) are left out of `all` unless the caller manages the group's members: they would tell
 * the caller who is in a group they cannot see.
 *
 * The filters and the reading of a page and its count are the same for projects: the kit's
 * members/member-lists.ts.
 */

export interface MemberListRow extends MemberUserColumns {
  membership_id: number;
  source_group_id: number;
  access_level: number;
  /** Managed by LDAP group sync (migration 0014). */
  ldap: boolean;
  expires_at: string | null;
  created_at: Date;
  updated_at: Date;
}

interface GroupMemberFilter extends MemberFilter {
  /** Minimal-access rows too (the answer to adding or changing one; never in a list). */
  includeMinimalAccess?: boolean;
}

/** The candidate memberships of `all` for group $1, with the caller ($2, $3, $4) in scope. */
const allCandidatesSql = `
  ${readerCtes("$2::bigint")},
  g AS (SELECT traversal_ids FROM namespaces WHERE id = $1),
  candidates AS (
    SELECT m.id, m.namespace_id, m.user_id, m.access_level, m.expires_at, m.created_by_id,
           m.created_at, m.updated_at, m.ldap
      FROM members m, g
     WHERE m.namespace_id = ANY(g.traversal_ids) AND m.access_level >= 10
    UNION ALL
    SELECT m.id, m.namespace_id, m.user_id, LEAST(m.access_level, l.group_access), m.expires_at,
           m.created_by_id, m.created_at, m.updated_at, m.ldap
      FROM g, group_links l
      JOIN namespaces inv ON inv.id = l.shared_with_group_id
      JOIN members m ON m.namespace_id = l.shared_with_group_id
     WHERE l.shared_group_id = ANY(g.traversal_ids) AND m.access_level >= 10
       AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})
       AND ($4::boolean OR ${readableSql("inv", "$3::int")})
  ),
  best AS (
    SELECT DISTINCT ON (user_id) * FROM candidates ORDER BY user_id, access_level DESC, id
  )`;

const SELECT_ROW = `
  SELECT b.id AS membership_id, b.namespace_id AS source_group_id, b.access_level,
         to_char(b.expires_at, 'YYYY-MM-DD') AS expires_at, b.created_at, b.updated_at, b.ldap,
         u.id AS user_id, u.username, u.name, u.state, u.avatar_url, u.email,
         c.id AS created_by_id, c.username AS created_by_username, c.name AS created_by_name,
         c.state AS created_by_state, c.avatar_url AS created_by_avatar_url`;

/** Pages in membership id order, GitLab's default. */
const reads = memberListReads<MemberListRow>({ select: SELECT_ROW, orderBy: "b.id" });

function listSql(
  scope: "direct" | "all",
  groupId: number,
  viewer: MemberListViewer,
  f: GroupMemberFilter,
): MemberListSql {
  if (scope === "direct") {
    const filter = memberFilterSql(f, 2);
    return {
      with: "",
      from: `FROM members b JOIN users u ON u.id = b.user_id LEFT JOIN users c ON c.id = b.created_by_id
             WHERE b.namespace_id = $1 AND b.access_level >= ${f.includeMinimalAccess ? 5 : 10} ${filter.where}`,
      values: [groupId, ...filter.values],
    };
  }
  const filter = memberFilterSql(f, 5);
  return {
    with: `WITH ${allCandidatesSql}`,
    from: `FROM best b JOIN users u ON u.id = b.user_id LEFT JOIN users c ON c.id = b.created_by_id
           WHERE true ${filter.where}`,
    values: [groupId, viewer.userId, viewer.lowestVisibleLevel, viewer.managesMembers, ...filter.values],
  };
}

/** One page of a member list, and the count of the whole list (counted up to COUNT_CAP + 1). */
export async function listMembers(
  db: Queryable,
  scope: "direct" | "all",
  groupId: number,
  viewer: MemberListViewer,
  filter: MemberFilter,
  window: { limit: number; offset: number },
): Promise<{ rows: MemberListRow[]; counted: number }> {
  return reads.pageAndCount(db, listSql(scope, groupId, viewer, filter), window);
}

/** One user's entry in a member list, if they are in it. */
export async function findListedMember(
  db: Queryable,
  scope: "direct" | "all",
  groupId: number,
  viewer: MemberListViewer,
  userId: number,
  includeMinimalAccess = false,
): Promise<MemberListRow | undefined> {
  const q = listSql(scope, groupId, viewer, { userIds: [userId], includeMinimalAccess });
  return (await reads.page(db, q, { limit: 1, offset: 0 }))[0];
}
