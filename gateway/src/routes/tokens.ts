import type Router from "@koa/router";
import type { Context } from "koa";
import { common } from "@canopy/protos";
import { personalAccessToken } from "../entities/token";
import { unauthorizedError } from "../http/errors";
import { sendJson } from "../http/json";
import { pageRequest, paginationParams, setPaginationHeaders } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { actorOf, rawParams, type RouteDeps } from "./context";

/** `self` is the token the request was made with; it must be a personal access token. */
function selfTokenId(ctx: Context): number {
  const actor = actorOf(ctx);
  if (!actor.tokenId) throw unauthorizedError();
  return actor.tokenId;
}

/** The caller as the token's owner, even under Sudo: `self` routes are about the token itself. */
const tokenOwner = (ctx: Context) => {
  const actor = actorOf(ctx);
  return actor.impersonatorId ? { ...actor, userId: actor.impersonatorId, admin: true } : actor;
};

export function tokenRoutes(router: Router, { auth: client, config, cache }: RouteDeps) {
  const api = requireScopes();

  router.get("/personal_access_tokens", requireUser, api, async (ctx) => {
    const p = parseParams(
      {
        ...paginationParams,
        user_id: param.id().optional(),
        state: param.oneOf(["active", "inactive"]).optional(),
        revoked: param.boolean().optional(),
        search: param.string(255).optional(),
      },
      rawParams(ctx),
    );
    const res = await client.listPersonalAccessTokens({
      actor: actorOf(ctx),
      userId: p.user_id ?? 0,
      state: p.state ?? "",
      revoked: p.revoked,
      search: p.search ?? "",
      page: pageRequest(p),
    });
    setPaginationHeaders(ctx, res.page!, res.tokens.length, config.CANOPY_EXTERNAL_URL);
    sendJson(ctx, 200, res.tokens.map(personalAccessToken));
  });

  router.get("/personal_access_tokens/self", requireUser, api, async (ctx) => {
    const t = await client.getPersonalAccessToken({ actor: tokenOwner(ctx), id: selfTokenId(ctx) });
    sendJson(ctx, 200, personalAccessToken(t));
  });

  router.get("/personal_access_tokens/:id", requireUser, api, async (ctx) => {
    const { id } = parseParams({ id: param.id() }, rawParams(ctx));
    sendJson(ctx, 200, personalAccessToken(await client.getPersonalAccessToken({ actor: actorOf(ctx), id })));
  });

  const revoke = async (ctx: Context, id: number, actor = actorOf(ctx)) => {
    await client.revokePersonalAccessToken({ actor, id });
    // The auth service has published the revocation; drop our own copy without waiting for it.
    await cache.dropToken(common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS, id);
    ctx.status = 204;
  };
  router.delete("/personal_access_tokens/self", requireUser, api, (ctx) =>
    revoke(ctx, selfTokenId(ctx), tokenOwner(ctx)),
  );
  router.delete("/personal_access_tokens/:id", requireUser, api, async (ctx) => {
    const { id } = parseParams({ id: param.id() }, rawParams(ctx));
    await revoke(ctx, id);
  });

  router.post("/users/:user_id/personal_access_tokens", requireUser, api, async (ctx) => {
    const p = parseParams(
      {
        user_id: param.id(),
        name: param.string(255),
        scopes: param.array(param.string(100)),
        expires_at: param.date().optional(),
        description: param.string(255).optional(),
      },
      rawParams(ctx),
    );
    const created = await client.createPersonalAccessToken({
      actor: actorOf(ctx),
      userId: p.user_id,
      name: p.name,
      description: p.description ?? "",
      scopes: p.scopes,
      expiresAt: p.expires_at ?? "",
    });
    sendJson(ctx, 201, { ...personalAccessToken(created.token!), token: created.secret });
  });
}
