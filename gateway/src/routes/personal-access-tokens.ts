import { common } from "@canopy/protos";
import { personalAccessToken } from "../entities/token";
import type { ApiContext } from "../http/api-context";
import { endpoint, type Call } from "../http/endpoint";
import { unauthorizedError } from "../http/errors";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { EVERY_TOKEN_SCOPE, READ_USER } from "../http/scopes";
import { PersonalAccessToken, PersonalAccessTokenWithToken, listOf } from "../entities/schemas";

/** The Personal Access Tokens API (GitLab lib/api/personal_access_tokens.rb, users.rb for creation). */

const noParams = {};

/**
 * `self` is the personal access token the request was made with. Any other credential (an OAuth
 * token, a session) is refused: its id numbers another table, and acting on the personal access
 * token that happens to share it would let one user read or revoke another's token.
 */
function selfTokenId({ actor }: Call<typeof noParams>): number {
  if (actor.tokenKind !== common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS || !actor.tokenId)
    throw unauthorizedError();
  return actor.tokenId;
}

/** The caller as the token's owner, even under Sudo: `self` routes are about the token itself. */
const tokenOwner = ({ actor }: Call<typeof noParams>): common.Actor =>
  actor.impersonatorId ? { ...actor, userId: actor.impersonatorId, admin: true } : actor;

const listTokensParams = {
  ...paginationParams,
  user_id: param.id().optional(),
  state: param.oneOf(["active", "inactive"]).optional(),
  revoked: param.boolean().optional(),
  search: param.string(255).optional(),
};

async function listPersonalAccessTokens({ params: p, actor, ctx, deps }: Call<typeof listTokensParams>) {
  const res = await deps.auth.listPersonalAccessTokens({
    actor,
    userId: p.user_id ?? 0,
    state: p.state ?? "",
    revoked: p.revoked,
    search: p.search ?? "",
    page: pageRequest(p),
  });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.tokens.length });
  sendJson(ctx, 200, res.tokens.map(personalAccessToken));
}

const tokenIdParams = { id: param.id() };

async function showSelfToken(call: Call<typeof noParams>) {
  const t = await call.deps.auth.getPersonalAccessToken({ actor: tokenOwner(call), id: selfTokenId(call) });
  sendJson(call.ctx, 200, personalAccessToken(t));
}

async function showPersonalAccessToken({ params, actor, ctx, deps }: Call<typeof tokenIdParams>) {
  sendJson(ctx, 200, personalAccessToken(await deps.auth.getPersonalAccessToken({ actor, id: params.id })));
}

async function revoke(ctx: ApiContext, deps: Call<typeof noParams>["deps"], actor: common.Actor, id: number) {
  await deps.auth.revokePersonalAccessToken({ actor, id });
  // The auth service has published the revocation; drop our own copy without waiting for it.
  await deps.cache.dropToken(common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS, id);
  ctx.status = 204;
}

const revokeSelfToken = (call: Call<typeof noParams>) =>
  revoke(call.ctx, call.deps, tokenOwner(call), selfTokenId(call));

const revokePersonalAccessToken = ({ params, actor, ctx, deps }: Call<typeof tokenIdParams>) =>
  revoke(ctx, deps, actor, params.id);

const createTokenParams = {
  user_id: param.id(),
  name: param.string(255),
  scopes: param.array(param.string(100)),
  expires_at: param.date().optional(),
  description: param.string(255).optional(),
};

async function createPersonalAccessToken({ params: p, actor, ctx, deps }: Call<typeof createTokenParams>) {
  const created = await deps.auth.createPersonalAccessToken({
    actor,
    userId: p.user_id,
    name: p.name,
    description: p.description ?? "",
    scopes: p.scopes,
    expiresAt: p.expires_at ?? "",
  });
  sendJson(ctx, 201, { ...personalAccessToken(created.token!), token: created.secret });
}

export const personalAccessTokenEndpoints = [
  endpoint({
    method: "GET",
    path: "/personal_access_tokens",
    access: "user",
    params: listTokensParams,
    handler: listPersonalAccessTokens,
    responses: { 200: listOf(PersonalAccessToken) },
  }),
  endpoint({
    method: "GET",
    path: "/personal_access_tokens/self",
    access: "user",
    scopes: EVERY_TOKEN_SCOPE,
    params: noParams,
    handler: showSelfToken,
    responses: { 200: PersonalAccessToken },
  }),
  endpoint({
    method: "GET",
    path: "/personal_access_tokens/:id",
    access: "user",
    params: tokenIdParams,
    handler: showPersonalAccessToken,
    responses: { 200: PersonalAccessToken },
  }),
  endpoint({
    method: "DELETE",
    path: "/personal_access_tokens/self",
    access: "user",
    scopes: EVERY_TOKEN_SCOPE,
    params: noParams,
    handler: revokeSelfToken,
    responses: { 204: null },
  }),
  endpoint({
    method: "DELETE",
    path: "/personal_access_tokens/:id",
    access: "user",
    params: tokenIdParams,
    handler: revokePersonalAccessToken,
    responses: { 204: null },
  }),
  endpoint({
    method: "POST",
    path: "/users/:user_id/personal_access_tokens",
    access: "admin",
    // Served by GitLab's Users class (lib/api/users.rb), whose read_user a refused token is told of.
    scopes: READ_USER,
    params: createTokenParams,
    handler: createPersonalAccessToken,
    responses: { 201: PersonalAccessTokenWithToken },
  }),
];
