import { userStatusEntity } from "../entities/user-status";
import { UserStatus } from "../entities/schemas";
import { endpoint, type Call } from "../http/endpoint";
import { notFoundError } from "../http/errors";
import { sendJson, sendJsonText } from "../http/json";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";

/**
 * Users' statuses (GitLab lib/api/users.rb: GET/PUT/PATCH /user/status, GET /users/:user_id/status). The
 * auth service keeps them; a status past its clear_status_at reads as none.
 */

const noParams = {};

async function showOwnStatus({ actor, ctx, deps }: Call<typeof noParams>) {
  const status = await deps.userStatus.getUserStatus({ actor, userId: actor.userId, username: "" });
  sendJson(ctx, 200, userStatusEntity(status));
}

const setStatusParams = {
  emoji: param.string(255).optional(),
  // The model's limit is 100 characters (a 400 naming the field); this only keeps bodies sane.
  message: param.string(10_000).optional(),
  // Blank leaves the availability as it was, as in GitLab.
  availability: param.oneOf(["not_set", "busy", ""]).optional(),
  clear_status_after: param
    .oneOf(["30_minutes", "3_hours", "8_hours", "1_day", "3_days", "7_days", "30_days"])
    .optional(),
};

/** PUT: every field not given is cleared (GitLab's `declared_params(include_missing: true)`). */
async function setOwnStatus({ params: p, actor, ctx, deps }: Call<typeof setStatusParams>) {
  const status = await deps.userStatus.setUserStatus({
    actor,
    replace: true,
    emoji: p.emoji,
    message: p.message,
    availability: p.availability,
    clearStatusAfter: p.clear_status_after,
  });
  sendJson(ctx, 200, userStatusEntity(status));
}

/**
 * PATCH: only the fields given change (GitLab's `declared_params(include_missing: false)`); with none
 * given GitLab answers 200 and a null body without touching the status.
 */
async function patchOwnStatus({ params: p, actor, ctx, deps }: Call<typeof setStatusParams>) {
  const given = Object.values(p).some((v) => v !== undefined);
  if (!given) return sendJsonText(ctx, 200, "null");
  const status = await deps.userStatus.setUserStatus({
    actor,
    replace: false,
    emoji: p.emoji,
    message: p.message,
    availability: p.availability,
    clearStatusAfter: p.clear_status_after,
  });
  sendJson(ctx, 200, userStatusEntity(status));
}

// A number is an id, anything else a username (GitLab's find_user).
const userStatusParams = { user_id: param.string(255) };

async function showUserStatus({ params, actor, ctx, deps }: Call<typeof userStatusParams>) {
  const byId = /^\d+$/.test(params.user_id);
  const id = byId ? Number(params.user_id) : 0;
  // An id no user can have (past bigint) is a user that does not exist, as GitLab's find_by(id:) says.
  if (byId && !(Number.isSafeInteger(id) && id > 0)) throw notFoundError("User");
  const status = await deps.userStatus.getUserStatus({
    actor,
    userId: id,
    username: byId ? "" : params.user_id,
  });
  sendJson(ctx, 200, userStatusEntity(status));
}

export const userStatusEndpoints = [
  endpoint({
    method: "GET",
    path: "/user/status",
    access: "user",
    scopes: READ_USER,
    params: noParams,
    handler: showOwnStatus,
    responses: { 200: UserStatus },
  }),
  endpoint({
    method: "PUT",
    path: "/user/status",
    access: "user",
    scopes: READ_USER,
    params: setStatusParams,
    handler: setOwnStatus,
    responses: { 200: UserStatus },
  }),
  endpoint({
    method: "PATCH",
    path: "/user/status",
    access: "user",
    scopes: READ_USER,
    params: setStatusParams,
    handler: patchOwnStatus,
    responses: { 200: UserStatus.nullable() },
  }),
  endpoint({
    method: "GET",
    path: "/users/:user_id/status",
    access: "anonymous",
    scopes: READ_USER,
    params: userStatusParams,
    handler: showUserStatus,
    responses: { 200: UserStatus },
  }),
];
