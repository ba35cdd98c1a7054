import { type Queryable, UTC_TODAY } from "@canopy/kit";

/**
 * The namespaces a user is authorized for, with the level each gives (GitLab's authorized groups):
 * their active direct memberships, and every group shared with a group they are a direct member
 * of, capped at the link's level (reference §2.3, §5.3). Expired rows and blocked users count for
 * nothing. Inheritance (ancestors' memberships reaching down) is applied by the callers through
 * traversal_ids. `$user` is the placeholder of the user id.
 *
 * This is the one place that says who has access through what; every access question builds on it.
 */
export const authorizedNamespacesSql = (user: string) => `
  SELECT m.namespace_id AS namespace_id, m.access_level AS access_level
    FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
   WHERE m.user_id = ${user} AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
  UNION ALL
  SELECT l.shared_group_id, LEAST(l.group_access, m.access_level)
    FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
    JOIN group_links l ON l.shared_with_group_id = m.namespace_id
   WHERE m.user_id = ${user} AND m.access_level >= 10
     AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
     AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})`;

/**
 * The namespaces holding a project the user sees through the project itself rather than through its
 * group (GitLab's authorized projects, `User#authorized_groups`): their active, unexpired direct
 * project memberships, and every share of a project with a group they, or an ancestor group's
 * membership of theirs, are in (GitLab's members_with_parents; the projects service's access path 4),
 * both unexpired. One row per project (a namespace may repeat). Such a user may read the namespace
 * and its ancestors (GitLab's has_projects) and nothing more: these give no access level.
 *
 * From the copies of the projects service's events (migration 0013). The share part reads every
 * share of a project with a group (a rare write, so a small table) against the user's few
 * memberships.
 */
export const projectNamespacesSql = (user: string) => `
  SELECT p.namespace_id
    FROM project_members pm JOIN users u ON u.id = pm.user_id AND u.state = 'active'
    JOIN projects p ON p.id = pm.project_id
   WHERE pm.user_id = ${user} AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
  UNION ALL
  SELECT p.namespace_id
    FROM project_shares s JOIN namespaces sg ON sg.id = s.group_id
    JOIN projects p ON p.id = s.project_id
   WHERE (s.expires_at IS NULL OR s.expires_at > ${UTC_TODAY})
     AND sg.traversal_ids && ARRAY(
           SELECT m.namespace_id FROM members m JOIN users u ON u.id = m.user_id AND u.state = 'active'
            WHERE m.user_id = ${user} AND m.access_level >= 10
              AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY}))`;

export interface AccessRow {
  /** The highest level reaching the namespace (direct, inherited or shared); 0 without any. */
  access_level: number;
  /**
   * The user is authorized for a descendant, or (having no access to it) sees a project in it or
   * below it: GitLab lets them read this (private) group and nothing more.
   */
  below: boolean;
}

/**
 * The user's effective access to the namespace with `traversal` (root → self), and whether they
 * hold access somewhere below it. One statement over the user's few authorizations; their projects
 * (projectNamespacesSql) are looked at only when nothing else gives them the group.
 */
export async function accessTo(db: Queryable, userId: number, traversal: number[]): Promise<AccessRow> {
  const self = traversal[traversal.length - 1];
  const { rows } = await db.query<AccessRow>({
    name: "groups-access-to",
    text: `WITH a AS (${authorizedNamespacesSql("$1")}),
      r AS (SELECT COALESCE((SELECT max(access_level) FROM a WHERE namespace_id = ANY($2::bigint[])), 0)::int AS access_level,
                   EXISTS (SELECT 1 FROM a JOIN namespaces n ON n.id = a.namespace_id
                            WHERE $3::bigint = ANY(n.traversal_ids) AND n.id <> $3::bigint) AS below)
      SELECT r.access_level,
             r.below OR (r.access_level = 0 AND EXISTS (
               SELECT 1 FROM (${projectNamespacesSql("$1")}) pn JOIN namespaces n ON n.id = pn.namespace_id
                WHERE $3::bigint = ANY(n.traversal_ids))) AS below
        FROM r`,
    values: [userId, traversal, self],
  });
  return rows[0]!;
}

/**
 * A condition on namespaces alias `n`: the user may read it without being an administrator — its
 * visibility reaches them (`lowest`, see lowestVisibleLevel), or they are authorized for it, an
 * ancestor of it, or something below it, or they see a project in it or below it. Needs the CTEs
 * `authorized` (authorizedNamespacesSql) and `project_namespaces` (projectNamespacesSql) in scope.
 */
export const readableSql = (n: string, lowest: string) => `(
  ${n}.visibility_level >= ${lowest}
  OR EXISTS (SELECT 1 FROM authorized a JOIN namespaces an ON an.id = a.namespace_id
              WHERE a.namespace_id = ANY(${n}.traversal_ids) OR ${n}.id = ANY(an.traversal_ids))
  OR EXISTS (SELECT 1 FROM project_namespaces pn JOIN namespaces pns ON pns.id = pn.namespace_id
              WHERE ${n}.id = ANY(pns.traversal_ids)))`;

/** The CTEs readableSql needs, for the user placeholder `user`. */
export const readerCtes = (user: string) =>
  `authorized AS (${authorizedNamespacesSql(user)}),
   project_namespaces AS (${projectNamespacesSql(user)})`;
