import {
  forbidden,
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
import { groupMembers, type common, type groups } from "@canopy/protos";
import { canAdminMembers, canReadMembers } from "../domain/members";
import type { Deps } from "../deps";
import { findListedMember, listMembers as listMemberRows, type MemberListRow } from "../store/member-lists";
import { highestAccessLevelOf } from "../store/members";
import { resolveGroup, type VisibleGroup } from "./groups";

/**
 * The group whose members the caller asks about: signed in (401), visible (404 "Group"), and
 * read_group_member (403 for a private group the caller sees only through something below it).
 */
export async function groupWithReadableMembers(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
): Promise<{ actor: common.Actor; group: VisibleGroup }> {
  const signedIn = requireSignedIn(actor);
  const group = await resolveGroup(deps, signedIn, ref);
  if (!canReadMembers(group.row.visibility_level, group.access)) throw forbidden();
  return { actor: signedIn, group };
}

const viewerOf = (actor: common.Actor, group: VisibleGroup): MemberListViewer => ({
  userId: actor.userId,
  lowestVisibleLevel: lowestVisibleLevel({
    userId: actor.userId,
    admin: actor.admin,
    external: actor.external,
  }),
  managesMembers: canAdminMembers(group.access),
});

const scopeOf = (scope: groupMembers.MemberScope) =>
  scope === groupMembers.MemberScope.MEMBER_SCOPE_ALL ? "all" : "direct";

/** GET /groups/:id/members and /members/all (reference §4.17). */
export async function listMembers(
  deps: Deps,
  req: groupMembers.ListMembersRequest,
): Promise<groupMembers.ListMembersResponse> {
  const { actor, group } = await groupWithReadableMembers(deps, req.actor, req.group);
  const window = pageWindow(req.page);
  const { rows, counted } = await listMemberRows(
    deps.pool,
    scopeOf(req.scope),
    group.row.id,
    viewerOf(actor, group),
    { query: req.query, userIds: req.userIds, skipUsers: req.skipUsers },
    window,
  );
  return { members: rows.map((r) => toMember(r, actor)), page: pageInfo(window, counted) };
}

/** GET /groups/:id/members/:user_id and /members/all/:user_id: 404 "Not found" unless listed. */
export async function getMember(
  deps: Deps,
  req: groupMembers.GetMemberRequest,
): Promise<groupMembers.Member> {
  const { actor, group } = await groupWithReadableMembers(deps, req.actor, req.group);
  const row = await findListedMember(
    deps.pool,
    scopeOf(req.scope),
    group.row.id,
    viewerOf(actor, group),
    req.userId,
  );
  if (!row) throw recordNotFound();
  return toMember(row, actor);
}

/** The group half of a user's highest_role (GET /users/:id for administrators): administrators only. */
export async function userHighestAccessLevel(
  deps: Deps,
  req: groupMembers.GetUserHighestAccessLevelRequest,
): Promise<groupMembers.UserHighestAccessLevel> {
  requireAdmin(req.actor);
  return { accessLevel: await highestAccessLevelOf(deps.pool, req.userId) };
}

/** A direct member of `groupId` as the API shows them to `actor` (after a write). */
export async function directMember(deps: Deps, actor: common.Actor, groupId: number, userId: number) {
  const viewer = { userId: 0, lowestVisibleLevel: 0, managesMembers: true };
  const row = await findListedMember(deps.pool, "direct", groupId, viewer, userId, true);
  if (!row) throw recordNotFound();
  return toMember(row, actor);
}

/** A member as `actor` may see them (the e-mail only for administrators: the kit's memberUserOf). */
export function toMember(row: MemberListRow, actor: common.Actor): groupMembers.Member {
  return {
    user: memberUserOf(row, actor),
    accessLevel: row.access_level,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at ?? "",
    createdBy: memberCreatedByOf(row),
    sourceGroupId: row.source_group_id,
    ldap: row.ldap,
  };
}
