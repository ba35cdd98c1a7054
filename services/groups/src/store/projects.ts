import type { Queryable } from "@canopy/kit";
import type { groupProjectEvents, groups, projectEvents } from "@canopy/protos";

/**
 * The copy of a project (migration 0012), as the projects service's events describe it. Answers
 * whether it appeared or moved to another namespace (who reads which group through it may change).
 */
export async function upsertProject(db: Queryable, p: projectEvents.ProjectSnapshot): Promise<boolean> {
  const { rows } = await db.query<{ before: string | null }>(
    `WITH old AS (SELECT namespace_id FROM projects WHERE id = $1)
     INSERT INTO projects (id, namespace_id, path, visibility_level) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET namespace_id = EXCLUDED.namespace_id, path = EXCLUDED.path,
       visibility_level = EXCLUDED.visibility_level
     RETURNING (SELECT namespace_id FROM old)::text AS before`,
    [p.id, p.namespaceId, p.path, p.visibilityLevel],
  );
  return rows[0]?.before !== String(p.namespaceId);
}

export async function deleteProject(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM projects WHERE id = $1", [id]);
}

/** Whether anyone sees the project through the project itself (a membership or a share copied). */
export async function projectHasReaders(db: Queryable, id: number): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM project_members WHERE project_id = $1)
         OR EXISTS (SELECT 1 FROM project_shares WHERE project_id = $1) AS any`,
    [id],
  );
  return Boolean(rows[0]?.any);
}

/** A project's sizes; a project this copy does not hold (removed since) is left alone. */
export async function setProjectStatistics(db: Queryable, s: groupProjectEvents.ProjectStatistics) {
  await db.query(
    `UPDATE projects SET storage_size = $2, repository_size = $3, wiki_size = $4, lfs_objects_size = $5,
       job_artifacts_size = $6, packages_size = $7, snippets_size = $8, pipeline_artifacts_size = $9,
       uploads_size = $10
     WHERE id = $1`,
    [
      s.projectId,
      s.storageSize,
      s.repositorySize,
      s.wikiSize,
      s.lfsObjectsSize,
      s.jobArtifactsSize,
      s.packagesSize,
      s.snippetsSize,
      s.pipelineArtifactsSize,
      s.uploadsSize,
    ],
  );
}

/** True when a project directly in the namespace has this path (case-insensitively). */
export async function projectPathTaken(db: Queryable, namespaceId: number, path: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "SELECT 1 FROM projects WHERE namespace_id = $1 AND lower(path) = lower($2)",
    [namespaceId, path],
  );
  return Boolean(rowCount);
}

/** The highest visibility of a project directly in the group, or undefined without projects. */
export async function highestProjectVisibility(db: Queryable, groupId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ level: number | null }>(
    "SELECT max(visibility_level)::int AS level FROM projects WHERE namespace_id = $1",
    [groupId],
  );
  return rows[0]?.level ?? undefined;
}

/** GitLab's group statistics: sums over the projects directly in each group (0 without any). */
export async function statisticsOf(
  db: Queryable,
  groupIds: readonly number[],
): Promise<Map<number, groups.GroupStatistics>> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT g.id::text AS id,
            COALESCE(sum(p.storage_size), 0)::text AS storage_size,
            COALESCE(sum(p.repository_size), 0)::text AS repository_size,
            COALESCE(sum(p.wiki_size), 0)::text AS wiki_size,
            COALESCE(sum(p.lfs_objects_size), 0)::text AS lfs_objects_size,
            COALESCE(sum(p.job_artifacts_size), 0)::text AS job_artifacts_size,
            COALESCE(sum(p.packages_size), 0)::text AS packages_size,
            COALESCE(sum(p.snippets_size), 0)::text AS snippets_size,
            COALESCE(sum(p.pipeline_artifacts_size), 0)::text AS pipeline_artifacts_size,
            COALESCE(sum(p.uploads_size), 0)::text AS uploads_size
       FROM unnest($1::bigint[]) g(id) LEFT JOIN projects p ON p.namespace_id = g.id
      GROUP BY g.id`,
    [groupIds],
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        storageSize: Number(r.storage_size),
        repositorySize: Number(r.repository_size),
        wikiSize: Number(r.wiki_size),
        lfsObjectsSize: Number(r.lfs_objects_size),
        jobArtifactsSize: Number(r.job_artifacts_size),
        packagesSize: Number(r.packages_size),
        snippetsSize: Number(r.snippets_size),
        pipelineArtifactsSize: Number(r.pipeline_artifacts_size),
        uploadsSize: Number(r.uploads_size),
      },
    ]),
  );
}
