import type { Queryable } from "@canopy/kit";

/** Today in UTC, as SQL: a membership or link expires at the start of its expires_at date. */
export const UTC_TODAY = "(now() AT TIME ZONE 'utc')::date";

/**
 * Project access, the one SQL definition (GitLab's project authorizations). A user's access to a
 * project is the highest of:
 *   1. their membership of the project's group or any ancestor of it (inherited downwards);
 *   2. a share of that group or an ancestor with a group they are a direct member of, capped at the
 *      share's level (`LEAST(link, membership)`);
 *   3. their direct project membership;
 *   4. a share of the project with a group G, when they are a member of G or of an ancestor of G
 *      (GitLab's members_with_parents), capped at the share's level;
 *   5. owning the personal namespace the project is in (Owner).
 * Expired memberships and shares count for nothing, and a blocked user has no access at all.
 * Administrators are not special here: callers give them everything.
 *
 * `authorizedGroupsSql` is the user's groups with the level each gives *to that group and its
 * descendants* (1 and 2; `direct` marks 1, the memberships that 4 builds on). The two statements
 * below build on it: `projectAccessSql` for one project, `authorizedProjectsSql` for lists.
 * `$user` is the placeholder of the user id.
 */
export const authorizedGroupsSql = (user: string) => `
  SELECT m.namespace_id, m.access_level, true AS direct
    FROM group_members m
   WHERE m.user_id = ${user} AND m.access_level >= 10
     AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')
  UNION ALL
  SELECT l.shared_group_id, LEAST(l.group_access, m.access_level), false
    FROM group_members m
    JOIN group_group_links l ON l.shared_with_group_id = m.namespace_id
   WHERE m.user_id = ${user} AND m.access_level >= 10
     AND (m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})
     AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')`;

/** Every project the user has access to, with the level (one row per path; callers take the max). */
export const authorizedProjectsSql = (user: string) => `
  SELECT p.id AS project_id, g.access_level
    FROM authorized_groups g JOIN projects p ON p.traversal_ids @> ARRAY[g.namespace_id]
  UNION ALL
  SELECT pm.project_id, pm.access_level
    FROM project_members pm
   WHERE pm.user_id = ${user} AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')
  UNION ALL
  SELECT l.project_id, LEAST(l.group_access, g.access_level)
    FROM authorized_groups g
    JOIN namespaces sg ON sg.traversal_ids @> ARRAY[g.namespace_id]
    JOIN project_group_links l ON l.group_id = sg.id
   WHERE g.direct AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})
  UNION ALL
  SELECT p.id, 50
    FROM namespaces n JOIN projects p ON p.namespace_id = n.id
   WHERE n.owner_id = ${user} AND n.kind = 'user'
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')`;

/** The CTEs `authorized_groups` and `authorized_projects` (project_id, access_level) for `$user`. */
export const authorizationCtes = (user: string) =>
  `authorized_groups AS (${authorizedGroupsSql(user)}),
   authorized_projects AS (SELECT project_id, max(access_level)::int AS access_level
                             FROM (${authorizedProjectsSql(user)}) a GROUP BY project_id)`;

export interface ProjectAccess {
  /** The highest level reaching the project; 0 without any. */
  access_level: number;
  /** The user's own project membership level (0 none). */
  project_access_level: number;
  /** The level the project's group gives them (1 and 2 above; 0 none). */
  group_access_level: number;
}

/** The user's effective access to one project (its id and its namespace's traversal_ids). */
export async function projectAccessOf(
  db: Queryable,
  userId: number,
  project: { id: number; traversal_ids: number[]; namespace_id: number },
): Promise<ProjectAccess> {
  const { rows } = await db.query<ProjectAccess>({
    name: "projects-access-of",
    text: `WITH authorized_groups AS (${authorizedGroupsSql("$1")}),
      active AS (SELECT NOT EXISTS (SELECT 1 FROM users b WHERE b.id = $1 AND b.state <> 'active') AS ok),
      via_group AS (
        SELECT max(access_level) AS level FROM authorized_groups WHERE namespace_id = ANY($3::bigint[])),
      via_owner AS (
        SELECT 50 AS level FROM namespaces n, active WHERE active.ok AND n.id = $4 AND n.kind = 'user' AND n.owner_id = $1),
      via_member AS (
        SELECT pm.access_level AS level FROM project_members pm, active
         WHERE active.ok AND pm.project_id = $2 AND pm.user_id = $1
           AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})),
      via_link AS (
        SELECT LEAST(l.group_access, g.access_level) AS level
          FROM project_group_links l JOIN namespaces sg ON sg.id = l.group_id
          JOIN authorized_groups g ON g.direct AND g.namespace_id = ANY(sg.traversal_ids)
         WHERE l.project_id = $2 AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY}))
      SELECT GREATEST((SELECT max(level) FROM via_group), (SELECT max(level) FROM via_owner),
                      (SELECT max(level) FROM via_member), (SELECT max(level) FROM via_link), 0)::int AS access_level,
             COALESCE((SELECT max(level) FROM via_member), 0)::int AS project_access_level,
             COALESCE((SELECT max(level) FROM via_group), 0)::int AS group_access_level`,
    values: [userId, project.id, project.traversal_ids, project.namespace_id],
  });
  return rows[0]!;
}

/** The user's level in a namespace (membership of it or an ancestor, shares, or owning it). */
export async function namespaceAccessOf(
  db: Queryable,
  userId: number,
  namespace: { id: number; traversal_ids: number[]; kind: string; owner_id: number | null },
): Promise<number> {
  if (namespace.kind === "user") return namespace.owner_id === userId ? 50 : 0;
  const { rows } = await db.query<{ level: number }>({
    name: "projects-namespace-access-of",
    text: `WITH authorized_groups AS (${authorizedGroupsSql("$1")})
      SELECT COALESCE(max(access_level), 0)::int AS level FROM authorized_groups WHERE namespace_id = ANY($2::bigint[])`,
    values: [userId, namespace.traversal_ids],
  });
  return rows[0]!.level;
}

/**
 * Whether the group `alias` (a namespaces row) is one the caller ($user, seeing $lowest and up)
 * may read (GitLab's read_group): by visibility, by a membership of it, an ancestor or a
 * descendant, or by being a member of a project below it.
 */
export const groupReadableSql = (alias: string, user: string, lowest: string) => `(
  ${alias}.visibility_level >= ${lowest}
  OR EXISTS (SELECT 1 FROM (${authorizedGroupsSql(user)}) ag
               JOIN namespaces an ON an.id = ag.namespace_id
              WHERE ag.namespace_id = ANY(${alias}.traversal_ids) OR ${alias}.id = ANY(an.traversal_ids))
  OR EXISTS (SELECT 1 FROM project_members pm JOIN projects pp ON pp.id = pm.project_id
              WHERE pm.user_id = ${user} AND pp.traversal_ids @> ARRAY[${alias}.id]
                AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
                AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')))`;
