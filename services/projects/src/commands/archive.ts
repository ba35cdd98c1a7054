import { forbidden, notFound, recordEvent, requireSignedIn, withTransaction } from "@canopy/kit";
import { PROJECTS_EVENTS, type projects } from "@canopy/protos";
import { projectAbilities } from "../domain/access";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { projectDetail, resolveProject } from "../finders/projects";
import { findProjectById, updateProject } from "../store/projects";

/**
 * POST /projects/:id/archive and /unarchive (GitLab's Projects::UpdateService with archived): visible
 * (404), Maintainer or up (403). Repeating one is harmless and answers the project again (201).
 */
export async function setArchived(
  deps: Deps,
  req: projects.ArchiveProjectRequest,
  archived: boolean,
): Promise<projects.Project> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(found.access.access_level).admin) throw forbidden();
  await withTransaction(deps.pool, async (tx) => {
    const row = await findProjectById(tx, found.row.id, true);
    if (!row) throw notFound("Project");
    if (row.archived === archived) return;
    await updateProject(tx, row.id, { archived });
    const after = (await findProjectById(tx, row.id))!;
    const kind = archived ? PROJECTS_EVENTS.projectArchived : PROJECTS_EVENTS.projectUnarchived;
    await recordEvent(tx, kind, { project: projectSnapshot(after) }, actor);
  });
  const row = (await findProjectById(deps.pool, found.row.id))!;
  return projectDetail(deps, actor, { row, access: found.access });
}
