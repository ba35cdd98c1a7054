import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  planFeatures,
  recordEvent,
  requireSignedIn,
  withTransaction,
  type Timer,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type projects } from "@canopy/protos";
import { projectAbilities } from "../domain/access";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { resolveProject } from "../finders/projects";
import { findProjectById, lockDueMarkedProjects, markProjectForDeletion } from "../store/projects";
import { removeProject } from "./remove-projects";

export const ALREADY_MARKED = "Project has been already marked for deletion";

/**
 * True when DELETE marks instead of removing: premium and up with an adjourned period (GitLab's
 * delayed project deletion); the free plan removes at once.
 */
export const deletionIsAdjourned = (deps: Deps) =>
  planFeatures(deps.config.CANOPY_PLAN).adjournedDeletion &&
  deps.settings.current().deletionAdjournedPeriod > 0;

/**
 * DELETE /projects/:id: visible (404), Owner or administrator (403), then removed at once (free) or
 * marked for deletion (premium and up; a second DELETE is 400 "already marked"). Both answer 202.
 */
export async function deleteProjectCommand(
  deps: Deps,
  req: projects.DeleteProjectRequest,
): Promise<projects.DeleteProjectResponse> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(found.access.access_level).remove) throw forbidden();
  const adjourned = deletionIsAdjourned(deps);
  await withTransaction(deps.pool, async (tx) => {
    const row = await findProjectById(tx, found.row.id, true);
    if (!row) throw notFound("Project");
    if (!adjourned) return removeProject(tx, row);
    if (row.marked_for_deletion_on) throw apiError(400, ALREADY_MARKED, grpcStatus.FAILED_PRECONDITION);
    await markProjectForDeletion(tx, row.id, actor.userId);
    const marked = (await findProjectById(tx, row.id))!;
    await recordEvent(
      tx,
      PROJECTS_EVENTS.projectMarkedForDeletion,
      { project: projectSnapshot(marked) },
      actor,
    );
  });
  return { marked: adjourned };
}

/** Removes projects marked `deletion_adjourned_period` days ago or earlier (GitLab's AdjournedProjectsDeletionCronWorker). */
export async function runAdjournedProjectDeletions(deps: Deps, batch = 100): Promise<number> {
  const days = deps.settings.current().deletionAdjournedPeriod;
  return withTransaction(deps.pool, async (tx) => {
    const ids = await lockDueMarkedProjects(tx, days, batch);
    for (const id of ids) {
      const row = await findProjectById(tx, id);
      if (row) await removeProject(tx, row);
    }
    return ids.length;
  });
}

/** The adjourned-deletion timer, on every replica (rows are taken FOR UPDATE SKIP LOCKED). */
export function deletionTimers(deps: Deps): Timer[] {
  const every = deps.config.CANOPY_PROJECTS_ADJOURNED_DELETION_MS;
  if (!every) return [];
  let running: Promise<unknown> | undefined;
  return [
    {
      name: "adjourned project deletion",
      everyMs: every,
      run: () => (running ??= runAdjournedProjectDeletions(deps).finally(() => (running = undefined))),
    },
  ];
}
