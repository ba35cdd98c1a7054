import { z } from "zod";
import { grpcStatus, isServiceError } from "@canopy/kit";
import { groupMembers, type common } from "@canopy/protos";
import { memberEntity } from "../entities/member";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import type { RouteDeps } from "./context";
import { groupRef, userHint } from "./groups";
import { Member, MembersAdded, listOf } from "../entities/schemas";

/**
 * The group members API (GitLab lib/api/members.rb, group half). Every route needs a user (401),
 * even the reads. The groups service decides who may see and change what; the gateway adds only
 * what it alone knows: the auth service's view of a user who is being added (see `authUser`).
 */

const { MEMBER_SCOPE_DIRECT: DIRECT, MEMBER_SCOPE_ALL: ALL } = groupMembers.MemberScope;
const INTEGER = /^\s*\d+\s*$/;

/** Grape's DateTime as GitLab's members take it: a date; "" or null for none. */
export const expiresAtParam = z
  .union([param.date(), z.literal("")])
  .nullable()
  .optional();

const listParams = {
  id: param.idOrPath(),
  query: param.string(1_000).optional(),
  user_ids: param.array(param.integer()).optional(),
  show_seat_info: param.boolean().optional(),
  ...paginationParams,
};
const directListParams = { ...listParams, skip_users: param.array(param.integer()).optional() };

async function list(
  { params: p, actor, ctx, deps }: Call<typeof listParams>,
  scope: groupMembers.MemberScope,
  skipUsers: number[] = [],
) {
  const res = await deps.groupMembers.listMembers({
    actor,
    group: groupRef(p.id),
    scope,
    query: p.query ?? "",
    userIds: p.user_ids ?? [],
    skipUsers,
    page: pageRequest(p),
  });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.members.length });
  sendJson(
    ctx,
    200,
    res.members.map((m) => memberEntity(m, deps.config.CANOPY_EXTERNAL_URL)),
  );
}

const listGroupMembers = (call: Call<typeof directListParams>) =>
  list(call, DIRECT, call.params.skip_users ?? []);
// GitLab's /members/all declares no skip_users: it is ignored there.
const listAllGroupMembers = (call: Call<typeof listParams>) => list(call, ALL);

const oneParams = { id: param.idOrPath(), user_id: param.integer() };

async function one({ params: p, actor, ctx, deps }: Call<typeof oneParams>, scope: groupMembers.MemberScope) {
  const m = await deps.groupMembers.getMember({ actor, group: groupRef(p.id), scope, userId: p.user_id });
  sendJson(ctx, 200, memberEntity(m, deps.config.CANOPY_EXTERNAL_URL));
}

const showGroupMember = (call: Call<typeof oneParams>) => one(call, DIRECT);
const showInheritedGroupMember = (call: Call<typeof oneParams>) => one(call, ALL);

/**
 * The user as auth knows them; undefined when auth has no such user (deleted, or never was). A user
 * created a moment ago may not have reached the groups service through auth's events yet: the
 * service fills its missing copy from this (never overwrites one, never revives a user whose
 * deletion it applied). A user auth does not know gets no hint, so "404 User Not Found".
 */
export async function authUser(deps: RouteDeps, actor: common.Actor, id: number, username = "") {
  try {
    return await deps.auth.getUser({ actor, id, username, withCustomAttributes: false });
  } catch (err) {
    if (isServiceError(err) && err.code === grpcStatus.NOT_FOUND) return undefined;
    throw err;
  }
}

const addParams = {
  id: param.idOrPath(),
  // GitLab: an id, or several ids separated by commas (types [Integer, String]).
  user_id: param.string(10_000).optional(),
  username: param.string(255).optional(),
  access_level: param.int32(),
  expires_at: expiresAtParam,
  invite_source: param.string(255).optional(),
  member_role_id: param.integer().optional(),
};

export const oneUserRule = (p: { user_id?: string; username?: string }) => [
  p.user_id === undefined && p.username === undefined
    ? "user_id, username are missing, at least one parameter must be provided"
    : undefined,
  p.user_id !== undefined && p.username !== undefined
    ? "user_id, username are mutually exclusive"
    : undefined,
];

/** `user_id=1,2,3`: the distinct numeric ids, at most 100 (GitLab's CommaSeparatedToIntegerArray). */
export const userIdsOf = (userId: string) =>
  [
    ...new Set(
      userId
        .split(",")
        .filter((s) => INTEGER.test(s))
        .map(Number),
    ),
  ]
    .filter(Number.isSafeInteger)
    .slice(0, 100);

/** A single `user_id` as a number (0 when it is no number: it then names no user). */
export const singleUserIdOf = (userId: string | undefined) =>
  userId !== undefined && INTEGER.test(userId) ? Number(userId) : 0;

async function addGroupMember({ params: p, actor, ctx, deps }: Call<typeof addParams>) {
  const group = groupRef(p.id);
  const expiresAt = p.expires_at ?? "";
  if (p.user_id !== undefined && p.user_id.includes(",")) {
    const userIds = userIdsOf(p.user_id);
    const users = await Promise.all(userIds.map((id) => authUser(deps, actor, id)));
    const res = await deps.groupMembers.addMembers({
      actor,
      group,
      userIds,
      accessLevel: p.access_level,
      expiresAt,
      users: users.flatMap((u) => userHint(u) ?? []),
    });
    // GitLab answers Members::CreateService's result as it is.
    const failed = Object.keys(res.errors).length > 0;
    sendJson(ctx, 201, failed ? { status: "error", message: res.errors } : { status: "success" });
    return;
  }
  const userId = singleUserIdOf(p.user_id);
  const username = p.username ?? "";
  const known = userId || username ? await authUser(deps, actor, userId, userId ? "" : username) : undefined;
  const m = await deps.groupMembers.addMember({
    actor,
    group,
    userId: userId || known?.id || 0,
    // A user_id that is no number names no user: 404 "User", after the group's own checks.
    username: p.user_id !== undefined ? "" : username,
    accessLevel: p.access_level,
    expiresAt,
    user: userHint(known),
  });
  sendJson(ctx, 201, memberEntity(m, deps.config.CANOPY_EXTERNAL_URL));
}

const updateParams = {
  id: param.idOrPath(),
  user_id: param.integer(),
  access_level: param.int32(),
  expires_at: expiresAtParam,
  member_role_id: param.integer().optional(),
};

async function updateGroupMember({ params: p, actor, ctx, deps }: Call<typeof updateParams>) {
  const m = await deps.groupMembers.updateMember({
    actor,
    group: groupRef(p.id),
    userId: p.user_id,
    accessLevel: p.access_level,
    expiresAt: p.expires_at ?? "",
    // Given but empty (or null) clears the date; absent keeps it.
    clearExpiresAt: p.expires_at === "" || p.expires_at === null,
  });
  sendJson(ctx, 200, memberEntity(m, deps.config.CANOPY_EXTERNAL_URL));
}

const removeParams = {
  id: param.idOrPath(),
  user_id: param.integer(),
  skip_subresources: param.boolean().optional(),
  unassign_issuables: param.boolean().optional(),
};

/** If-Unmodified-Since as GitLab reads it: a date it cannot parse is no condition. */
export function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const d = new Date(header);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

async function removeGroupMember({ params: p, actor, ctx, deps }: Call<typeof removeParams>) {
  await deps.groupMembers.removeMember({
    actor,
    group: groupRef(p.id),
    userId: p.user_id,
    skipSubresources: p.skip_subresources ?? false,
    unmodifiedSince: unmodifiedSince(ctx.get("If-Unmodified-Since") || undefined),
  });
  ctx.status = 204;
}

// `/members/all` and `/members/all/:user_id` come before `/members/:user_id`, which would take "all".
export const groupMemberEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/members/all",
    access: "user",
    params: listParams,
    handler: listAllGroupMembers,
    responses: { 200: listOf(Member) },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/members/all/:user_id",
    access: "user",
    params: oneParams,
    handler: showInheritedGroupMember,
    responses: { 200: Member },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/members",
    access: "user",
    params: directListParams,
    handler: listGroupMembers,
    responses: { 200: listOf(Member) },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/members/:user_id",
    access: "user",
    params: oneParams,
    handler: showGroupMember,
    responses: { 200: Member },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/members",
    access: "user",
    params: addParams,
    validate: oneUserRule,
    handler: addGroupMember,
    responses: { 201: z.union([Member, MembersAdded]) },
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/members/:user_id",
    access: "user",
    params: updateParams,
    handler: updateGroupMember,
    responses: { 200: Member },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/members/:user_id",
    access: "user",
    params: removeParams,
    handler: removeGroupMember,
    responses: { 204: null },
  }),
];
