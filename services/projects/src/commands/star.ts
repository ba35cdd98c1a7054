import { recordEvent, requireSignedIn, withTransaction } from "@canopy/kit";
import { PROJECTS_EVENTS, type projects } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectDetail, resolveProject } from "../finders/projects";
import { findProjectById } from "../store/projects";
import { addStar, removeStar } from "../store/stars";

/**
 * POST /projects/:id/star and /unstar: any caller who can see the project (404 otherwise). A star
 * that is already there (or a missing one on unstar) changes nothing: `changed` false, which the
 * gateway answers 304 as GitLab does.
 */
export async function starProject(
  deps: Deps,
  req: projects.StarProjectRequest,
  star: boolean,
): Promise<projects.StarProjectResponse> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveProject(deps, actor, req.project);
  const changed = await withTransaction(deps.pool, async (tx) => {
    const done = star
      ? await addStar(tx, actor.userId, found.row.id)
      : await removeStar(tx, actor.userId, found.row.id);
    if (!done) return false;
    const row = (await findProjectById(tx, found.row.id))!;
    const kind = star ? PROJECTS_EVENTS.projectStarred : PROJECTS_EVENTS.projectUnstarred;
    await recordEvent(
      tx,
      kind,
      { projectId: row.id, userId: actor.userId, starCount: row.star_count },
      actor,
    );
    return true;
  });
  const row = (await findProjectById(deps.pool, found.row.id)) ?? found.row;
  return { project: await projectDetail(deps, actor, { row, access: found.access }), changed };
}
