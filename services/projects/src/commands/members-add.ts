import {
  conflict,
  firstFullMessage,
  forbidden,
  invalid,
  notFound,
  OWNER,
  type Queryable,
  recordEvent,
  utcToday,
  withTransaction,
} from "@canopy/kit";
import {
  PROJECTS_EVENTS,
  type common,
  type events,
  type projectEvents,
  type projectMembers,
} from "@canopy/protos";
import { canAdminMembers, canManageOwners, memberErrors, type MemberErrors } from "../domain/members";
import type { Deps } from "../deps";
import { directMember, projectForMembers } from "../finders/members";
import type { VisibleProject } from "../finders/projects";
import {
  findMembership,
  highestGroupMembership,
  insertMembership,
  type MembershipRow,
} from "../store/project-members";
import { insertEvent } from "../store/events";
import { findUser, findUserByUsername, insertUserIfMissing, userRowOf, type UserRow } from "../store/users";

/**
 * POST /projects/:id/members, checks in GitLab's order (API::Members with Members::CreateService):
 * project visible (404), caller is a Maintainer or up (403), the user exists (404 "User"), not
 * already a member (409), the Owner level only from someone who manages owners (403), then the
 * model's validations (400, keyed by attribute). The gateway's hint fills a user copy that auth's
 * events have not brought yet (never one a deletion removed).
 */
export async function addMember(
  deps: Deps,
  req: projectMembers.AddProjectMemberRequest,
): Promise<projectMembers.ProjectMember> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  requireMemberAdmin(project);
  const userId = req.userId || req.user?.userId || (await findUserByUsername(deps.pool, req.username))?.id;
  const user = userId ? await knownUser(deps, userId, req.user) : undefined;
  if (!user) throw notFound("User");
  if (await findMembership(deps.pool, project.row.id, user.id)) throw conflict("Member already exists");
  requireOwnerGrant(project, req.accessLevel);
  const errors = await validate(deps.pool, project, user.id, req.accessLevel, req.expiresAt);
  if (Object.keys(errors).length) throw invalid(errors);
  const added = await withTransaction(deps.pool, (tx) =>
    insertAndRecord(tx, actor, project.row.id, user.id, req.accessLevel, req.expiresAt),
  );
  if (!added) throw conflict("Member already exists");
  return directMember(deps, actor, project.row.id, user.id);
}

/**
 * POST with `user_id=1,2,3` (Members::CreateService): the Owner level from someone who may not
 * grant it refuses them all (403); each known user not yet a member is added; users failing a
 * validation are answered by username. Unknown ids and existing members are passed over.
 */
export async function addMembers(
  deps: Deps,
  req: projectMembers.AddProjectMembersRequest,
): Promise<projectMembers.AddProjectMembersResponse> {
  const { actor, project } = await projectForMembers(deps, req.actor, req.project);
  requireMemberAdmin(project);
  requireOwnerGrant(project, req.accessLevel);
  const hints = new Map(req.users.map((u) => [u.userId, u]));
  const errors: Record<string, string> = {};
  for (const userId of [...new Set(req.userIds)]) {
    const user = await knownUser(deps, userId, hints.get(userId));
    if (!user || (await findMembership(deps.pool, project.row.id, userId))) continue;
    const problems = await validate(deps.pool, project, userId, req.accessLevel, req.expiresAt);
    const message = firstFullMessage(problems);
    if (message) {
      errors[user.username] = message;
      continue;
    }
    await withTransaction(deps.pool, (tx) =>
      insertAndRecord(tx, actor, project.row.id, userId, req.accessLevel, req.expiresAt),
    );
  }
  return { errors };
}

/** admin_project_member (Maintainers and up, administrators), else 403. */
export function requireMemberAdmin(project: VisibleProject): void {
  if (!canAdminMembers(project.access.access_level)) throw forbidden();
}

/** Members::CreateService / UpdateService: the Owner level needs manage_owners (403). */
export function requireOwnerGrant(project: VisibleProject, level: number): void {
  if (level >= OWNER && !canManageOwners(project.access.access_level)) throw forbidden();
}

async function knownUser(
  deps: Deps,
  userId: number,
  hint: events.UserSnapshot | undefined,
): Promise<UserRow | undefined> {
  const found = await findUser(deps.pool, userId);
  if (found || !hint || hint.userId !== userId) return found;
  await insertUserIfMissing(deps.pool, userRowOf(hint));
  return findUser(deps.pool, userId);
}

/** The model's validations of a membership being made or changed. */
export async function validate(
  db: Queryable,
  project: VisibleProject,
  userId: number,
  accessLevel: number,
  expiresAt: string,
): Promise<MemberErrors> {
  const inGroup = project.row.ns_kind === "group";
  return memberErrors({
    accessLevel,
    expiresAt: expiresAt || undefined,
    inherited: inGroup ? await highestGroupMembership(db, project.row.traversal_ids, userId) : undefined,
    today: utcToday(),
  });
}

/** The event payload of a membership row. */
export const membershipOf = (m: MembershipRow): projectEvents.ProjectMembership => ({
  projectId: m.project_id,
  userId: m.user_id,
  accessLevel: m.access_level,
  expiresAt: m.expires_at ?? "",
  createdById: m.created_by_id ?? 0,
});

async function insertAndRecord(
  tx: Queryable,
  actor: common.Actor,
  projectId: number,
  userId: number,
  accessLevel: number,
  expiresAt: string,
): Promise<MembershipRow | undefined> {
  const row = await insertMembership(tx, {
    projectId,
    userId,
    accessLevel,
    expiresAt: expiresAt || null,
    createdById: actor.userId,
  });
  if (!row) return row;
  await recordEvent(tx, PROJECTS_EVENTS.memberAdded, { member: membershipOf(row) }, actor);
  // ProjectMember#post_create_hook: the member's `joined` (the personal namespace's owner, made a
  // member by the project's creation, never passes here).
  await insertEvent(tx, { projectId, authorId: userId, action: "joined" });
  return row;
}
