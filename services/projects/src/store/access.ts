import { type Queryable, UTC_TODAY } from "@canopy/kit";

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
 * descendants* (1 and 2; `direct` marks 1, the memberships that 4 builds on). `authorizationCtes`
 * builds the rest on it, and lists, counts and single reads (`projectAccessOf`) all use those CTEs:
 * `reachesSql` to filter, `accessLevelSql` for the level. `$user` is the placeholder of the user id.
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

/**
 * The project-level paths (3 and 4): (project_id, access_level), one row per path. Built on
 * `authorized_groups`.
 */
export const directProjectsSql = (user: string) => `
  SELECT pm.project_id, pm.access_level
    FROM project_members pm
   WHERE pm.user_id = ${user} AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')
  UNION ALL
  SELECT l.project_id, LEAST(l.group_access, g.access_level)
    FROM authorized_groups g
    JOIN namespaces sg ON sg.traversal_ids @> ARRAY[g.namespace_id]
    JOIN project_group_links l ON l.group_id = sg.id
   WHERE g.direct AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})`;

/**
 * The namespace-level paths (1, 2 and 5): the namespaces whose projects, and their descendants'
 * (a project's traversal_ids hold its namespace and every ancestor), the user reaches, with the
 * level. Built on `authorized_groups`.
 */
export const accessNamespacesSql = (user: string) => `
  SELECT namespace_id, access_level FROM authorized_groups
  UNION ALL
  SELECT n.id, 50
    FROM namespaces n
   WHERE n.owner_id = ${user} AND n.kind = 'user'
     AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')`;

/**
 * The CTEs of project access for lists and counts: `authorized_groups`, `access_namespaces`
 * (namespace_id, access_level) and `access_projects` (project_id, access_level), each small (what
 * the user is a member of, not what that reaches). A project is reached through a namespace in its
 * traversal_ids or through its own id: `reachesSql` tests that with two arrays computed once per
 * statement (the GIN index on traversal_ids and the primary key answer them), so a list ordered by
 * an index walks that index and stops at its page; `accessLevelSql` is the level for one row.
 */
export const authorizationCtes = (user: string) =>
  `authorized_groups AS (${authorizedGroupsSql(user)}),
   access_namespaces AS (SELECT namespace_id, max(access_level)::int AS access_level
                           FROM (${accessNamespacesSql(user)}) a GROUP BY namespace_id),
   access_projects AS (SELECT project_id, max(access_level)::int AS access_level
                         FROM (${directProjectsSql(user)}) a GROUP BY project_id)`;

/**
 * Whether the user (authorizationCtes) reaches project `p` at `min` or higher (any level without
 * it). A project's level is the highest of its paths, so "level >= min" is "some path >= min".
 */
export const reachesSql = (p: string, min?: string) => {
  const at = min === undefined ? "" : ` WHERE access_level >= ${min}`;
  return `(${p}.traversal_ids && ARRAY(SELECT namespace_id FROM access_namespaces${at})
    OR ${p}.id = ANY(ARRAY(SELECT project_id FROM access_projects${at})))`;
};

/** The user's level (authorizationCtes) in project `p`, 0 without access. */
export const accessLevelSql = (p: string) =>
  `COALESCE(GREATEST(
     (SELECT max(an.access_level) FROM access_namespaces an WHERE an.namespace_id = ANY(${p}.traversal_ids)),
     (SELECT ap.access_level FROM access_projects ap WHERE ap.project_id = ${p}.id)), 0)`;

export interface ProjectAccess {
  /** The highest level reaching the project; 0 without any. */
  access_level: number;
  /** The user's own project membership level (0 none). */
  project_access_level: number;
  /** The level the project's group gives them (1 and 2 above; 0 none). */
  group_access_level: number;
}

/**
 * The user's effective access to one project (its id and its namespace's traversal_ids): the same
 * CTEs and level as lists (authorizationCtes, accessLevelSql), for one row; PostgreSQL pushes the
 * project's id into `access_projects`, so only that project's memberships and shares are read.
 */
export async function projectAccessOf(
  db: Queryable,
  userId: number,
  project: { id: number; traversal_ids: number[]; namespace_id: number },
): Promise<ProjectAccess> {
  const { rows } = await db.query<ProjectAccess>({
    name: "projects-access-of",
    text: `WITH ${authorizationCtes("$1")}
      SELECT ${accessLevelSql("p")}::int AS access_level,
             COALESCE((SELECT max(pm.access_level) FROM project_members pm
                        WHERE pm.project_id = p.id AND pm.user_id = $1
                          AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
                          AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = $1 AND b.state <> 'active')), 0)::int
               AS project_access_level,
             COALESCE((SELECT max(g.access_level) FROM authorized_groups g
                        WHERE g.namespace_id = ANY(p.traversal_ids)), 0)::int AS group_access_level
        FROM (SELECT $2::bigint AS id, $3::bigint[] AS traversal_ids) p`,
    values: [userId, project.id, project.traversal_ids],
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
 * descendant, or by seeing a project below it through the project (GitLab's has_projects: a
 * project membership, or a share of the project with a group they or an ancestor's membership are
 * in, path 4 above; the groups service's projectNamespacesSql says the same).
 */
export const groupReadableSql = (alias: string, user: string, lowest: string) => `(
  ${alias}.visibility_level >= ${lowest}
  OR EXISTS (SELECT 1 FROM (${authorizedGroupsSql(user)}) ag
               JOIN namespaces an ON an.id = ag.namespace_id
              WHERE ag.namespace_id = ANY(${alias}.traversal_ids) OR ${alias}.id = ANY(an.traversal_ids))
  OR EXISTS (SELECT 1 FROM project_members pm JOIN projects pp ON pp.id = pm.project_id
              WHERE pm.user_id = ${user} AND pp.traversal_ids @> ARRAY[${alias}.id]
                AND (pm.expires_at IS NULL OR pm.expires_at > ${UTC_TODAY})
                AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active'))
  OR EXISTS (SELECT 1 FROM group_members gm
               JOIN namespaces sg ON sg.traversal_ids @> ARRAY[gm.namespace_id]
               JOIN project_group_links pl ON pl.group_id = sg.id
               JOIN projects pp ON pp.id = pl.project_id
              WHERE gm.user_id = ${user} AND gm.access_level >= 10 AND pp.traversal_ids @> ARRAY[${alias}.id]
                AND (gm.expires_at IS NULL OR gm.expires_at > ${UTC_TODAY})
                AND (pl.expires_at IS NULL OR pl.expires_at > ${UTC_TODAY})
                AND NOT EXISTS (SELECT 1 FROM users b WHERE b.id = ${user} AND b.state <> 'active')))`;
