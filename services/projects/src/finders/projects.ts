import { lowestVisibleLevel, notFound, OWNER, type Queryable, type VisibilityViewer } from "@canopy/kit";
import type { common, projects } from "@canopy/protos";
import { canReadProject } from "../domain/visibility";
import type { Deps } from "../deps";
import { projectAccessOf, type ProjectAccess } from "../store/access";
import { findProjectById, findProjectByPath, sharedWithGroupsOf, type ProjectRow } from "../store/projects";
import { findCustomAttributes } from "../store/custom-attributes";
import { hasStarred } from "../store/stars";
import { toProject } from "./project-view";

/** A project the caller may see, with their access to it (Owner for administrators). */
export interface VisibleProject {
  row: ProjectRow;
  access: ProjectAccess;
}

export const viewerOf = (actor: common.Actor | undefined): VisibilityViewer => ({
  userId: actor?.userId ?? 0,
  admin: Boolean(actor?.admin),
  external: Boolean(actor?.external),
});

/** The caller's access to a project; administrators get Owner, anonymous callers nothing. */
export async function callerAccess(
  db: Queryable,
  actor: common.Actor | undefined,
  row: ProjectRow,
): Promise<ProjectAccess> {
  const found = actor?.userId
    ? await projectAccessOf(db, actor.userId, row)
    : { access_level: 0, project_access_level: 0, group_access_level: 0 };
  return actor?.admin ? { ...found, access_level: OWNER } : found;
}

/**
 * Finds the project at `ref` (id, or full path case-insensitively) and checks that the caller may see
 * it. Missing and invisible are the same answer: 404 "Project Not Found" (GitLab's find_project!).
 */
export async function resolveProject(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: projects.ProjectRef | undefined,
  db: Queryable = deps.pool,
): Promise<VisibleProject> {
  const row = ref?.id
    ? await findProjectById(db, ref.id)
    : ref?.fullPath
      ? await findProjectByPath(db, ref.fullPath)
      : undefined;
  if (!row) throw notFound("Project");
  const access = await callerAccess(db, actor, row);
  if (!canReadProject(row.visibility_level, viewerOf(actor), access.access_level)) throw notFound("Project");
  return { row, access };
}

/** The single-project answer: the project with its shares (those the caller can see) and their star. */
export async function projectDetail(
  deps: Deps,
  actor: common.Actor | undefined,
  found: VisibleProject,
): Promise<projects.Project> {
  const viewer = viewerOf(actor);
  // GitLab shows a share only when the caller may read the invited group.
  const shares = await sharedWithGroupsOf(deps.pool, found.row.id, {
    userId: viewer.admin ? 0 : viewer.userId,
    lowestVisibleLevel: lowestVisibleLevel(viewer),
  });
  const starred = actor?.userId ? await hasStarred(deps.pool, actor.userId, found.row.id) : false;
  return toProject(
    found.row,
    { ...found.access, starred },
    shares.map((s) => ({
      groupId: s.group_id,
      groupName: s.group_name,
      groupFullPath: s.group_full_path,
      groupAccessLevel: s.group_access,
      expiresAt: s.expires_at ?? "",
    })),
  );
}

export async function getProject(deps: Deps, req: projects.GetProjectRequest): Promise<projects.Project> {
  const found = await resolveProject(deps, req.actor, req.project);
  const detail = await projectDetail(deps, req.actor, found);
  // `with_custom_attributes` is ignored for everyone but administrators, as GitLab does.
  if (!req.actor?.admin || !req.withCustomAttributes) return detail;
  const values = Object.fromEntries(
    (await findCustomAttributes(deps.pool, found.row.id)).map((a) => [a.key, a.value]),
  );
  return { ...detail, customAttributes: { values } };
}
