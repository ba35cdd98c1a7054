import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  planFeatures,
  recordEvent,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type projectLifecycle, type projects } from "@canopy/protos";
import { projectAbilities } from "../domain/access";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { projectDetail, resolveProject } from "../finders/projects";
import { clearProjectDeletionMark, findProjectById } from "../store/projects";

export const NOT_MARKED = "Project has not been marked for deletion";

/**
 * POST /projects/:id/restore (GitLab EE's API and Projects::RestoreService): visible (404), Owner or
 * administrator (403, GitLab's remove_project), the adjourned deletion licensed (else 404 "404 Not
 * Found"), marked (else 400). The mark goes, the project is unarchived (as GitLab's service does).
 */
export async function restoreProject(
  deps: Deps,
  req: projectLifecycle.RestoreProjectRequest,
): Promise<projects.Project> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(found.access.access_level).remove) throw forbidden();
  if (!planFeatures(deps.config.CANOPY_PLAN).adjournedDeletion)
    throw apiError(404, "404 Not Found", grpcStatus.NOT_FOUND);
  await withTransaction(deps.pool, async (tx) => {
    const row = await findProjectById(tx, found.row.id, true);
    if (!row) throw notFound("Project");
    if (!row.marked_for_deletion_on) throw apiError(400, NOT_MARKED, grpcStatus.FAILED_PRECONDITION);
    await clearProjectDeletionMark(tx, row.id);
    const restored = (await findProjectById(tx, row.id))!;
    await recordEvent(tx, PROJECTS_EVENTS.projectRestored, { project: projectSnapshot(restored) }, actor);
  });
  const row = (await findProjectById(deps.pool, found.row.id))!;
  return projectDetail(deps, actor, { row, access: found.access });
}
