import { projectMembers } from "@canopy/protos";
import { memberEntity } from "../entities/member";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import {
  authUser,
  expiresAtParam,
  oneUserRule,
  singleUserIdOf,
  unmodifiedSince,
  userIdsOf,
} from "./group-members";
import { userHint } from "./groups";
import { projectRef } from "./projects";
import { z } from "zod";
import { Member, MembersAdded, listOf } from "../entities/schemas";

/**
 * The project members API (GitLab lib/api/members.rb, project half). Every route needs a user
 * (401), even the reads. The projects service decides who may see and change what.
 */

const { PROJECT_MEMBER_SCOPE_DIRECT: DIRECT, PROJECT_MEMBER_SCOPE_ALL: ALL } =
  projectMembers.ProjectMemberScope;

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
  scope: projectMembers.ProjectMemberScope,
  skipUsers: number[] = [],
) {
  const res = await deps.projectMembers.listProjectMembers({
    actor,
    project: projectRef(p.id),
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

const oneParams = { id: param.idOrPath(), user_id: param.integer() };

async function one(
  { params: p, actor, ctx, deps }: Call<typeof oneParams>,
  scope: projectMembers.ProjectMemberScope,
) {
  const m = await deps.projectMembers.getProjectMember({
    actor,
    project: projectRef(p.id),
    scope,
    userId: p.user_id,
  });
  sendJson(ctx, 200, memberEntity(m, deps.config.CANOPY_EXTERNAL_URL));
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

async function addProjectMember({ params: p, actor, ctx, deps }: Call<typeof addParams>) {
  const project = projectRef(p.id);
  const expiresAt = p.expires_at ?? "";
  if (p.user_id !== undefined && p.user_id.includes(",")) {
    const userIds = userIdsOf(p.user_id);
    const users = await Promise.all(userIds.map((id) => authUser(deps, actor, id)));
    const res = await deps.projectMembers.addProjectMembers({
      actor,
      project,
      userIds,
      accessLevel: p.access_level,
      expiresAt,
      users: users.flatMap((u) => userHint(u) ?? []),
    });
    const failed = Object.keys(res.errors).length > 0;
    sendJson(ctx, 201, failed ? { status: "error", message: res.errors } : { status: "success" });
    return;
  }
  const userId = singleUserIdOf(p.user_id);
  const username = p.username ?? "";
  const known = userId || username ? await authUser(deps, actor, userId, userId ? "" : username) : undefined;
  const m = await deps.projectMembers.addProjectMember({
    actor,
    project,
    userId: userId || known?.id || 0,
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

async function updateProjectMember({ params: p, actor, ctx, deps }: Call<typeof updateParams>) {
  const m = await deps.projectMembers.updateProjectMember({
    actor,
    project: projectRef(p.id),
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

async function removeProjectMember({ params: p, actor, ctx, deps }: Call<typeof removeParams>) {
  await deps.projectMembers.removeProjectMember({
    actor,
    project: projectRef(p.id),
    userId: p.user_id,
    unmodifiedSince: unmodifiedSince(ctx.get("If-Unmodified-Since") || undefined),
  });
  ctx.status = 204;
}

// `/members/all` and `/members/all/:user_id` come before `/members/:user_id`, which would take "all".
export const projectMemberEndpoints = [
  endpoint({
    method: "GET",
    path: "/projects/:id/members/all",
    access: "user",
    params: listParams,
    handler: (call: Call<typeof listParams>) => list(call, ALL),
    responses: { 200: listOf(Member) },
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id/members/all/:user_id",
    access: "user",
    params: oneParams,
    handler: (call: Call<typeof oneParams>) => one(call, ALL),
    responses: { 200: Member },
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id/members",
    access: "user",
    params: directListParams,
    handler: (call: Call<typeof directListParams>) => list(call, DIRECT, call.params.skip_users ?? []),
    responses: { 200: listOf(Member) },
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id/members/:user_id",
    access: "user",
    params: oneParams,
    handler: (call: Call<typeof oneParams>) => one(call, DIRECT),
    responses: { 200: Member },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/members",
    access: "user",
    params: addParams,
    validate: oneUserRule,
    handler: addProjectMember,
    responses: { 201: z.union([Member, MembersAdded]) },
  }),
  endpoint({
    method: "PUT",
    path: "/projects/:id/members/:user_id",
    access: "user",
    params: updateParams,
    handler: updateProjectMember,
    responses: { 200: Member },
  }),
  endpoint({
    method: "DELETE",
    path: "/projects/:id/members/:user_id",
    access: "user",
    params: removeParams,
    handler: removeProjectMember,
    responses: { 204: null },
  }),
];
