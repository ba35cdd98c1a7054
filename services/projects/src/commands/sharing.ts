import {
  apiError,
  conflict,
  forbidden,
  grpcStatus,
  lowestVisibleLevel,
  notFound,
  recordEvent,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type projectSharing } from "@canopy/protos";
import { projectAbilities } from "../domain/access";
import type { Deps } from "../deps";
import { resolveProject, viewerOf } from "../finders/projects";
import {
  deleteProjectLink,
  findProjectLink,
  insertProjectLink,
  readableGroup,
  shareLocked,
  type ProjectLinkRow,
} from "../store/project-links";

/** Projects::GroupLinks::CreateService's error('Not Found', 404): `{"message":"Not Found"}`. */
const groupNotFound = () => apiError(404, "Not Found", grpcStatus.NOT_FOUND);

const SAME_HIERARCHY = "Project cannot be shared with the group it is in or one of its ancestors.";
const ALREADY_SHARED = "Group already shared with this group";

/**
 * POST /projects/:id/share (lib/api/projects.rb with Projects::GroupLinks::CreateService), in its
 * order: project visible (404 "Project"), admin_project (Maintainer+, 403), sharing not locked in
 * the project's group hierarchy (400 "The project sharing with group is disabled"), the group
 * exists and the caller may read it (404 "Not Found"), then the link's validations (409): not the
 * project's own group or an ancestor, not already shared.
 */
export async function shareProject(
  deps: Deps,
  req: projectSharing.ShareProjectRequest,
): Promise<projectSharing.ProjectGroupLink> {
  const actor = requireSignedIn(req.actor);
  const { row: project, access } = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(access.access_level).admin) throw forbidden();
  if (project.ns_kind === "group" && (await shareLocked(deps.pool, project.traversal_ids)))
    throw apiError(400, "The project sharing with group is disabled");
  const group = await readableGroup(deps.pool, req.groupId, {
    userId: actor.admin ? 0 : actor.userId,
    lowestVisibleLevel: lowestVisibleLevel(viewerOf(actor)),
  });
  if (!group) throw groupNotFound();
  if (project.traversal_ids.includes(group.id)) throw conflict(SAME_HIERARCHY);
  const link = await withTransaction(deps.pool, async (tx) => {
    const created = await insertProjectLink(tx, {
      projectId: project.id,
      groupId: group.id,
      groupAccess: req.groupAccess,
      expiresAt: req.expiresAt || null,
      createdById: actor.userId,
    });
    if (!created) throw conflict(ALREADY_SHARED);
    await recordEvent(
      tx,
      PROJECTS_EVENTS.projectShared,
      {
        projectId: project.id,
        groupId: group.id,
        groupAccess: created.group_access,
        expiresAt: created.expires_at ?? "",
      },
      actor,
    );
    return created;
  });
  return linkOf(link);
}

/**
 * DELETE /projects/:id/share/:group_id: project visible (404), admin_project (403), the link exists
 * (404 "Group Link Not Found"), If-Unmodified-Since (412), then removed (204).
 */
export async function unshareProject(
  deps: Deps,
  req: projectSharing.UnshareProjectRequest,
): Promise<projectSharing.UnshareProjectResponse> {
  const actor = requireSignedIn(req.actor);
  const { row: project, access } = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(access.access_level).admin) throw forbidden();
  const link = await findProjectLink(deps.pool, project.id, req.groupId);
  if (!link) throw notFound("Group Link");
  if (req.unmodifiedSince && link.updated_at > req.unmodifiedSince)
    throw apiError(412, "412 Precondition Failed", grpcStatus.FAILED_PRECONDITION);
  await withTransaction(deps.pool, async (tx) => {
    const removed = await deleteProjectLink(tx, link.id);
    if (removed)
      await recordEvent(
        tx,
        PROJECTS_EVENTS.projectUnshared,
        { projectId: project.id, groupId: removed.group_id },
        actor,
      );
  });
  return {};
}

const linkOf = (l: ProjectLinkRow): projectSharing.ProjectGroupLink => ({
  id: l.id,
  projectId: l.project_id,
  groupId: l.group_id,
  groupAccess: l.group_access,
  expiresAt: l.expires_at ?? "",
});
