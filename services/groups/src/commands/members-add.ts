import {
  conflict,
  firstFullMessage,
  forbidden,
  invalid,
  notFound,
  planFeatures,
  type Queryable,
  recordEvent,
  utcToday,
  withTransaction,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type events, type groupMembers } from "@canopy/protos";
import { mayGrant, memberErrors, type MemberErrors } from "../domain/members";
import type { Deps } from "../deps";
import type { VisibleGroup } from "../finders/groups";
import { directMember } from "../finders/members";
import { findMembership, highestAncestorMembership, insertMember, type MemberRow } from "../store/members";
import { findUser, findUserByUsername, insertUserIfMissing, userRowOf, type UserRow } from "../store/users";
import { groupForMemberWrite, membershipOf, requireMemberAdmin } from "./members-common";

/**
 * POST /groups/:id/members (reference §4.17), checks in GitLab's order: group visible (404), caller
 * manages members (403), not already a member (409), user exists (404 "User"), then the model's
 * validations (400, keyed by attribute). The user may be newer than this service's copy: the
 * gateway's hint fills a missing copy, never one a deletion removed.
 */
export async function addMember(
  deps: Deps,
  req: groupMembers.AddMemberRequest,
): Promise<groupMembers.Member> {
  const { actor, group } = await groupForMemberWrite(deps, req.actor, req.group);
  requireMemberAdmin(group);
  if (!mayGrant(group.access, req.accessLevel)) throw forbidden();
  const userId = req.userId || req.user?.userId || (await findUserByUsername(deps.pool, req.username))?.id;
  if (!userId) throw notFound("User");
  if (await findMembership(deps.pool, group.row.id, userId)) throw conflict("Member already exists");
  const user = await knownUser(deps, userId, req.user);
  if (!user) throw notFound("User");
  const errors = await validate(deps, deps.pool, group, userId, req.accessLevel, req.expiresAt);
  if (Object.keys(errors).length) throw invalid(errors);
  const added = await withTransaction(deps.pool, (tx) =>
    insertAndRecord(tx, actor, group.row.id, userId, req.accessLevel, req.expiresAt),
  );
  if (!added) throw conflict("Member already exists");
  return directMember(deps, actor, group.row.id, userId);
}

/**
 * POST with `user_id=1,2,3` (GitLab's Members::CreateService): each known user not yet a member is
 * added; users that fail a validation are answered by username, as GitLab's per-user messages.
 * Unknown ids and existing members are passed over.
 */
export async function addMembers(
  deps: Deps,
  req: groupMembers.AddMembersRequest,
): Promise<groupMembers.AddMembersResponse> {
  const { actor, group } = await groupForMemberWrite(deps, req.actor, req.group);
  requireMemberAdmin(group);
  if (!mayGrant(group.access, req.accessLevel)) throw forbidden();
  const hints = new Map(req.users.map((u) => [u.userId, u]));
  const errors: Record<string, string> = {};
  for (const userId of [...new Set(req.userIds)]) {
    const user = await knownUser(deps, userId, hints.get(userId));
    if (!user || (await findMembership(deps.pool, group.row.id, userId))) continue;
    const problems = await validate(deps, deps.pool, group, userId, req.accessLevel, req.expiresAt);
    const message = firstFullMessage(problems);
    if (message) {
      errors[user.username] = message;
      continue;
    }
    await withTransaction(deps.pool, (tx) =>
      insertAndRecord(tx, actor, group.row.id, userId, req.accessLevel, req.expiresAt),
    );
  }
  return { errors };
}

/** This service's copy of the user, filled from the gateway's hint when it has not arrived yet. */
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

/** The model's validations of a new membership (Member, GroupMember, EE's minimal access). */
export async function validate(
  deps: Deps,
  db: Queryable,
  group: VisibleGroup,
  userId: number,
  accessLevel: number,
  expiresAt: string,
): Promise<MemberErrors> {
  const ancestors = group.row.traversal_ids.slice(0, -1);
  return memberErrors({
    accessLevel,
    expiresAt: expiresAt || undefined,
    minimalAccess: planFeatures(deps.config.CANOPY_PLAN).minimalAccess,
    topLevel: group.row.parent_id === null,
    inherited: await highestAncestorMembership(db, ancestors, userId),
    today: utcToday(),
  });
}

async function insertAndRecord(
  tx: Queryable,
  actor: common.Actor,
  groupId: number,
  userId: number,
  accessLevel: number,
  expiresAt: string,
): Promise<MemberRow | undefined> {
  // A concurrent add of the same user loses on the unique (group, user) pair: "already exists".
  await tx.query("SAVEPOINT add_member");
  let row: MemberRow;
  try {
    row = await insertMember(tx, {
      namespaceId: groupId,
      userId,
      accessLevel,
      expiresAt: expiresAt || null,
      createdById: actor.userId,
    });
  } catch (err) {
    if ((err as { code?: string }).code !== "23505") throw err;
    await tx.query("ROLLBACK TO SAVEPOINT add_member");
    return undefined;
  }
  await recordEvent(tx, GROUPS_EVENTS.memberAdded, { member: membershipOf(row) }, actor);
  return row;
}
