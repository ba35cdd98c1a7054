import { type Queryable, UTC_TODAY } from "@canopy/kit";
import type { StoredSettings } from "../domain/project-settings";
import { groupReadableSql } from "./access";

/** A project with its namespace (and the namespace's user, for personal projects), as finders read it. */
export interface ProjectRow extends StoredSettings {
  id: number;
  namespace_id: number;
  traversal_ids: number[];
  name: string;
  path: string;
  description: string | null;
  visibility_level: number;
  archived: boolean;
  default_branch: string | null;
  topics: string[];
  creator_id: number;
  star_count: number;
  marked_for_deletion_on: string | null;
  created_at: Date;
  updated_at: Date;
  last_activity_at: Date;
  ns_kind: "group" | "user";
  ns_name: string;
  ns_path: string;
  ns_full_path: string;
  ns_full_name: string;
  ns_parent_id: number | null;
  ns_owner_id: number | null;
  owner_username: string | null;
  owner_name: string | null;
  owner_state: string | null;
  owner_avatar_url: string | null;
}

/** The select list and joins of a ProjectRow (`p` projects, `n` namespaces, `o` the namespace's user). */
export const PROJECT_COLUMNS = `p.id::int, p.namespace_id::int, p.traversal_ids::int[] AS traversal_ids, p.name,
  p.path, p.description, p.visibility_level, p.archived, p.default_branch, p.topics, p.creator_id::int,
  p.star_count, to_char(p.marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on, p.created_at,
  p.updated_at, p.last_activity_at, p.access_levels, p.settings,
  n.kind AS ns_kind, n.name AS ns_name, n.path AS ns_path, n.full_path AS ns_full_path,
  n.full_name AS ns_full_name, n.parent_id::int AS ns_parent_id, n.owner_id::int AS ns_owner_id,
  o.username AS owner_username, o.name AS owner_name, o.state AS owner_state, o.avatar_url AS owner_avatar_url`;
export const PROJECT_JOINS = `JOIN namespaces n ON n.id = p.namespace_id LEFT JOIN users o ON o.id = n.owner_id`;

export async function findProjectById(
  db: Queryable,
  id: number,
  lock = false,
): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ${PROJECT_JOINS} WHERE p.id = $1 ${lock ? "FOR UPDATE OF p" : ""}`,
    [id],
  );
  return rows[0];
}

/** By full path (`group/sub/project`), case-insensitively. */
export async function findProjectByPath(db: Queryable, fullPath: string): Promise<ProjectRow | undefined> {
  const slash = fullPath.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ${PROJECT_JOINS}
      WHERE lower(n.full_path) = lower($1) AND lower(p.path) = lower($2)
      ORDER BY (n.full_path = $1 AND p.path = $2) DESC LIMIT 1`,
    [fullPath.slice(0, slash), fullPath.slice(slash + 1)],
  );
  return rows[0];
}

/** Which of `path` (case-insensitively) and `name` (exactly) another project of the namespace holds. */
export async function takenInNamespace(
  db: Queryable,
  namespaceId: number,
  { path, name }: { path?: string; name?: string },
  exceptId = 0,
): Promise<{ path: boolean; name: boolean }> {
  const { rows } = await db.query<{ path: boolean; name: boolean }>(
    `SELECT COALESCE(bool_or(lower(path) = lower($2)), false) AS path, COALESCE(bool_or(name = $3), false) AS name
       FROM projects WHERE namespace_id = $1 AND id <> $4 AND (lower(path) = lower($2) OR name = $3)`,
    [namespaceId, path ?? null, name ?? null, exceptId],
  );
  return rows[0]!;
}

export interface NewProject extends StoredSettings {
  namespace_id: number;
  traversal_ids: number[];
  name: string;
  path: string;
  description: string | null;
  visibility_level: number;
  default_branch: string | null;
  topics: string[];
  creator_id: number;
}

export async function insertProject(db: Queryable, p: NewProject): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO projects (namespace_id, traversal_ids, name, path, description, visibility_level,
                           default_branch, topics, creator_id, access_levels, settings)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id::int`,
    [
      p.namespace_id,
      p.traversal_ids,
      p.name,
      p.path,
      p.description,
      p.visibility_level,
      p.default_branch,
      p.topics,
      p.creator_id,
      p.access_levels,
      p.settings,
    ],
  );
  return rows[0]!.id;
}

export interface ProjectChanges {
  name?: string;
  path?: string;
  description?: string;
  visibility_level?: number;
  default_branch?: string;
  topics?: string[];
  archived?: boolean;
  access_levels?: Record<string, number>;
  settings?: Record<string, unknown>;
}

/** Applies the changes given (settings are merged into the stored ones) and touches updated_at. */
export async function updateProject(db: Queryable, id: number, c: ProjectChanges): Promise<void> {
  await db.query(
    `UPDATE projects SET
       name = COALESCE($2, name), path = COALESCE($3, path), description = COALESCE($4, description),
       visibility_level = COALESCE($5, visibility_level), default_branch = COALESCE($6, default_branch),
       topics = COALESCE($7, topics), archived = COALESCE($8, archived),
       access_levels = access_levels || COALESCE($9, '{}'::jsonb), settings = settings || COALESCE($10, '{}'::jsonb),
       updated_at = now(), last_activity_at = now()
     WHERE id = $1`,
    [
      id,
      c.name ?? null,
      c.path ?? null,
      c.description ?? null,
      c.visibility_level ?? null,
      c.default_branch ?? null,
      c.topics ?? null,
      c.archived ?? null,
      c.access_levels ?? null,
      c.settings ?? null,
    ],
  );
}

export async function insertProjectMember(
  db: Queryable,
  m: { projectId: number; userId: number; accessLevel: number; createdById: number },
): Promise<void> {
  await db.query(
    `INSERT INTO project_members (project_id, user_id, access_level, created_by_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, user_id) DO NOTHING`,
    [m.projectId, m.userId, m.accessLevel, m.createdById],
  );
}

export async function markProjectForDeletion(db: Queryable, id: number, byUserId: number): Promise<void> {
  await db.query(
    `UPDATE projects SET marked_for_deletion_on = (now() AT TIME ZONE 'utc')::date,
       deletion_scheduled_by_id = $2, updated_at = now() WHERE id = $1`,
    [id, byUserId],
  );
}

/** Restore (GitLab's Projects::RestoreService): the mark gone and the project unarchived. */
export async function clearProjectDeletionMark(db: Queryable, id: number): Promise<void> {
  await db.query(
    `UPDATE projects SET marked_for_deletion_on = NULL, deletion_scheduled_by_id = NULL, archived = false,
       updated_at = now() WHERE id = $1`,
    [id],
  );
}

export async function deleteProject(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM projects WHERE id = $1", [id]);
}

/** Locks and returns the projects directly in a namespace (a removal cascade takes them all). */
export async function lockProjectsIn(db: Queryable, namespaceId: number): Promise<ProjectRow[]> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ${PROJECT_JOINS} WHERE p.namespace_id = $1 ORDER BY p.id FOR UPDATE OF p`,
    [namespaceId],
  );
  return rows;
}

/** Locks and returns up to `limit` projects with an id above `afterId`, in id order (a backfill's batch). */
export async function lockProjectsAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<ProjectRow[]> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ${PROJECT_JOINS} WHERE p.id > $1 ORDER BY p.id LIMIT $2 FOR UPDATE OF p`,
    [afterId, limit],
  );
  return rows;
}

/** Projects marked at least `days` days ago, locked (other replicas skip them). */
export async function lockDueMarkedProjects(db: Queryable, days: number, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id::int FROM projects
      WHERE marked_for_deletion_on IS NOT NULL
        AND marked_for_deletion_on <= (now() AT TIME ZONE 'utc')::date - $1::int
      ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [days, limit],
  );
  return rows.map((r) => r.id);
}

/**
 * The groups a project is shared with (unexpired links) that the viewer may read (GitLab's
 * visible_group_links: public_or_visible_to_user); administrators see them all.
 */
export async function sharedWithGroupsOf(
  db: Queryable,
  projectId: number,
  viewer: { userId: number; lowestVisibleLevel: number },
) {
  const { rows } = await db.query<{
    group_id: number;
    group_name: string;
    group_full_path: string;
    group_access: number;
    expires_at: string | null;
  }>(
    `SELECT l.group_id::int, g.name AS group_name, g.full_path AS group_full_path, l.group_access,
            to_char(l.expires_at, 'YYYY-MM-DD') AS expires_at
       FROM project_group_links l JOIN namespaces g ON g.id = l.group_id
      WHERE l.project_id = $1 AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})
        AND ${groupReadableSql("g", "$2::bigint", "$3::int")}
      ORDER BY l.group_id`,
    [projectId, viewer.userId, viewer.lowestVisibleLevel],
  );
  return rows;
}
