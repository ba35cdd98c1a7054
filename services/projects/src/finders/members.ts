import {
  lowestVisibleLevel,
  memberCreatedByOf,
  type MemberListViewer,
  memberUserOf,
  pageInfo,
  pageWindow,
  recordNotFound,
  requireAdmin,
  requireSignedIn,
} from "@canopy/kit";
import { projectMembers, type common, type projects } from "@canopy/protos";
import { canAdminMembers } from "../domain/members";
import type { Deps } from "../deps";
import {
  findListedProjectMember,
  highestProjectAccessLevelOf,
  listProjectMembers,
  type ProjectMemberRow,
} from "../store/project-members";
import { resolveProject, viewerOf, type VisibleProject } from "./projects";

/**
 * The project whose members the caller asks about: signed in (401) and visible (404 "Project").
 * Whoever can read a project may read its members (read_project_member comes with read_project).
 */
export async function projectForMembers(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: projects.ProjectRef | undefined,
): Promise<{ actor: common.Actor; project: VisibleProject }> {
  const signedIn = requireSignedIn(actor);
  return { actor: signedIn, project: await resolveProject(deps, signedIn, ref) };
}

const listViewer = (actor: common.Actor, project: VisibleProject): MemberListViewer => ({
  userId: actor.userId,
  lowestVisibleLevel: lowestVisibleLevel(viewerOf(actor)),
  managesMembers: canAdminMembers(project.access.access_level),
});

const scopeOf = (scope: projectMembers.ProjectMemberScope) =>
  scope === projectMembers.ProjectMemberScope.PROJECT_MEMBER_SCOPE_ALL ? "all" : "direct";

/** GET /projects/:id/members and /members/all. */
export async function listMembers(
  deps: Deps,
  req: projectMembers.ListProjectMembersRequest,
): Promise<projectMembers.ListProjectMembersResponse> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  const window = pageWindow(req.page);
  const { rows, counted } = await listProjectMembers(
    deps.pool,
    scopeOf(req.scope),
    project.row.id,
    listViewer(actor, project),
    { query: req.query, userIds: req.userIds, skipUsers: req.skipUsers },
    window,
  );
  return { members: rows.map((r) => toMember(r, actor)), page: pageInfo(window, counted) };
}

/** GET /projects/:id/members/:user_id and /members/all/:user_id: 404 "Not found" unless listed. */
export async function getMember(
  deps: Deps,
  req: projectMembers.GetProjectMemberRequest,
): Promise<projectMembers.ProjectMember> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  const row = await findListedProjectMember(
    deps.pool,
    scopeOf(req.scope),
    project.row.id,
    listViewer(actor, project),
    req.userId,
  );
  if (!row) throw recordNotFound();
  return toMember(row, actor);
}

/** The project half of a user's highest_role (GET /users/:id for administrators): administrators only. */
export async function userHighestProjectAccessLevel(
  deps: Deps,
  req: projectMembers.GetUserHighestProjectAccessLevelRequest,
): Promise<projectMembers.UserHighestProjectAccessLevel> {
  requireAdmin(req.actor);
  return { accessLevel: await highestProjectAccessLevelOf(deps.pool, req.userId) };
}

/** A direct member as the answer to a write shows them. */
export async function directMember(deps: Deps, actor: common.Actor, projectId: number, userId: number) {
  const viewer = { userId: 0, lowestVisibleLevel: 0, managesMembers: true };
  const row = await findListedProjectMember(deps.pool, "direct", projectId, viewer, userId);
  if (!row) throw recordNotFound();
  return toMember(row, actor);
}

/** A member as `actor` may see them: the e-mail only for administrators (GitLab EE's entity). */
export function toMember(row: ProjectMemberRow, actor: common.Actor): projectMembers.ProjectMember {
  return {
    user: memberUserOf(row, actor),
    accessLevel: row.access_level,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at ?? "",
    createdBy: memberCreatedByOf(row),
    sourceType: row.source_type,
    sourceId: row.source_id,
  };
}
