import {
  apiError,
  forbidden,
  grpcStatus,
  invalid,
  recordEvent,
  recordNotFound,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type common, type projectMembers } from "@canopy/protos";
import { mayChangeMember } from "../domain/members";
import type { Deps } from "../deps";
import { directMember, projectForMembers } from "../finders/members";
import type { VisibleProject } from "../finders/projects";
import {
  deleteMembership,
  findMembership,
  updateMembership,
  type MembershipRow,
} from "../store/project-members";
import { insertLeaveEvent } from "../store/events";
import { membershipOf, requireMemberAdmin, requireOwnerGrant, validate } from "./members-add";

const preconditionFailed = () => apiError(412, "412 Precondition Failed", grpcStatus.FAILED_PRECONDITION);

/** The holder of the personal namespace a project is in (their membership is untouchable). */
const personalHolderOf = (project: VisibleProject) =>
  project.row.ns_kind === "user" ? project.row.ns_owner_id : null;

function requireMayChange(actor: common.Actor, project: VisibleProject, m: MembershipRow, removal: boolean) {
  const allowed = mayChangeMember({
    callerAccess: project.access.access_level,
    callerId: actor.userId,
    target: { userId: m.user_id, accessLevel: m.access_level },
    personalHolderId: personalHolderOf(project),
    removal,
  });
  if (!allowed) throw forbidden();
}

/**
 * PUT /projects/:id/members/:user_id: project visible (404), caller a Maintainer or up (403), a
 * direct member (404 "Not found"), ProjectMemberPolicy and the Owner level (403), then the model's
 * validations (400). An event only when the level or the expiry really changed.
 */
export async function updateMember(
  deps: Deps,
  req: projectMembers.UpdateProjectMemberRequest,
): Promise<projectMembers.ProjectMember> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  requireMemberAdmin(project);
  const projectId = project.row.id;
  if (!(await findMembership(deps.pool, projectId, req.userId))) throw recordNotFound();
  await withTransaction(deps.pool, async (tx) => {
    const member = await findMembership(tx, projectId, req.userId, true);
    if (!member) throw recordNotFound();
    requireMayChange(actor, project, member, false);
    requireOwnerGrant(project, req.accessLevel);
    const expiresAt = req.clearExpiresAt ? null : req.expiresAt || member.expires_at;
    // Only a changed date is validated: an old one may lie in the past by now.
    const changedDate = expiresAt !== member.expires_at ? (expiresAt ?? "") : "";
    const errors = await validate(tx, project, req.userId, req.accessLevel, changedDate);
    if (Object.keys(errors).length) throw invalid(errors);
    if (req.accessLevel === member.access_level && expiresAt === member.expires_at) return;
    const updated = await updateMembership(tx, member.id, { accessLevel: req.accessLevel, expiresAt });
    if (!updated) throw recordNotFound();
    await recordEvent(
      tx,
      PROJECTS_EVENTS.memberUpdated,
      {
        member: membershipOf(updated),
        oldAccessLevel: member.access_level,
        oldExpiresAt: member.expires_at ?? "",
      },
      actor,
    );
  });
  return directMember(deps, actor, projectId, req.userId);
}

/**
 * DELETE /projects/:id/members/:user_id in GitLab's order: project visible (404), a direct member
 * (404 "Not found"), If-Unmodified-Since (412), then ProjectMemberPolicy (403): member admins, or
 * the member themselves; an Owner only by someone who manages owners; never the holder of the
 * personal namespace.
 */
export async function removeMember(
  deps: Deps,
  req: projectMembers.RemoveProjectMemberRequest,
): Promise<projectMembers.RemoveProjectMemberResponse> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  const found = await findMembership(deps.pool, project.row.id, req.userId);
  if (!found) throw recordNotFound();
  if (req.unmodifiedSince && found.updated_at > req.unmodifiedSince) throw preconditionFailed();
  requireMayChange(actor, project, found, true);
  await withTransaction(deps.pool, async (tx) => {
    const member = await findMembership(tx, project.row.id, req.userId, true);
    if (!member) throw recordNotFound();
    requireMayChange(actor, project, member, true);
    const removed = await deleteMembership(tx, member.id);
    if (!removed) return;
    await recordEvent(tx, PROJECTS_EVENTS.memberRemoved, { member: membershipOf(removed) }, actor);
    await insertLeaveEvent(tx, removed);
  });
  return {};
}
