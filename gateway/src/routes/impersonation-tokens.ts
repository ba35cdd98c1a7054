import { common } from "@canopy/protos";
import { impersonationToken } from "../entities/token";
import { ImpersonationToken, ImpersonationTokenWithToken, listOf } from "../entities/schemas";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";

/**
 * Impersonation tokens (GitLab lib/api/users.rb, `resource :impersonation_tokens`): personal access
 * tokens an administrator makes to act as a user. The auth service makes, checks and revokes them
 * as personal access tokens marked `impersonation`. Administrators only, before any parameter is
 * looked at (the resource's `before { authenticated_as_admin! }`).
 */

const listParams = {
  user_id: param.id(),
  ...paginationParams,
  state: param.oneOf(["all", "active", "inactive"]).optional(),
};

async function listImpersonationTokens({ params: p, actor, ctx, deps }: Call<typeof listParams>) {
  const res = await deps.impersonationTokens.listImpersonationTokens({
    actor,
    userId: p.user_id,
    state: p.state ?? "all",
    page: pageRequest(p),
  });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.tokens.length });
  sendJson(ctx, 200, res.tokens.map(impersonationToken));
}

const createParams = {
  user_id: param.id(),
  name: param.string(255),
  expires_at: param.date().optional(),
  scopes: param.array(param.string(100)).optional(),
};

async function createImpersonationToken({ params: p, actor, ctx, deps }: Call<typeof createParams>) {
  const created = await deps.impersonationTokens.createImpersonationToken({
    actor,
    userId: p.user_id,
    name: p.name,
    scopes: p.scopes ?? [],
    expiresAt: p.expires_at ?? "",
    description: "",
  });
  sendJson(ctx, 201, { ...impersonationToken(created.token!), token: created.secret });
}

const tokenParams = { user_id: param.id(), impersonation_token_id: param.id() };

async function showImpersonationToken({ params: p, actor, ctx, deps }: Call<typeof tokenParams>) {
  const token = await deps.impersonationTokens.getImpersonationToken({
    actor,
    userId: p.user_id,
    id: p.impersonation_token_id,
  });
  sendJson(ctx, 200, impersonationToken(token));
}

async function revokeImpersonationToken({ params: p, actor, ctx, deps }: Call<typeof tokenParams>) {
  await deps.impersonationTokens.revokeImpersonationToken({
    actor,
    userId: p.user_id,
    id: p.impersonation_token_id,
  });
  // The revocation event drops the token everywhere; this gateway does not wait for it.
  await deps.cache.dropToken(common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS, p.impersonation_token_id);
  ctx.status = 204;
}

export const impersonationTokenEndpoints = [
  endpoint({
    method: "GET",
    path: "/users/:user_id/impersonation_tokens",
    access: "admin",
    adminBeforeParams: true,
    scopes: READ_USER,
    params: listParams,
    handler: listImpersonationTokens,
    responses: { 200: listOf(ImpersonationToken) },
  }),
  endpoint({
    method: "POST",
    path: "/users/:user_id/impersonation_tokens",
    access: "admin",
    adminBeforeParams: true,
    scopes: READ_USER,
    params: createParams,
    handler: createImpersonationToken,
    responses: { 201: ImpersonationTokenWithToken },
  }),
  endpoint({
    method: "GET",
    path: "/users/:user_id/impersonation_tokens/:impersonation_token_id",
    access: "admin",
    adminBeforeParams: true,
    scopes: READ_USER,
    params: tokenParams,
    handler: showImpersonationToken,
    responses: { 200: ImpersonationToken },
  }),
  endpoint({
    method: "DELETE",
    path: "/users/:user_id/impersonation_tokens/:impersonation_token_id",
    access: "admin",
    adminBeforeParams: true,
    scopes: READ_USER,
    params: tokenParams,
    handler: revokeImpersonationToken,
    responses: { 204: null },
  }),
];
