import type Router from "@koa/router";
import { param, parseParams } from "../http/params";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { actorOf, rawParams, type RouteDeps } from "./context";

/**
 * PATCH /users/:id/disable_two_factor: an administrator turns off another user's two-factor
 * authentication (GitLab: 204; 400 when it is not on; 403 for administrators' accounts).
 */
export function twoFactorRoutes(router: Router, { auth: client, cache }: RouteDeps) {
  router.patch("/users/:id/disable_two_factor", requireUser, requireScopes(), async (ctx) => {
    const { id } = parseParams({ id: param.id() }, rawParams(ctx));
    await client.disableTwoFactor({ actor: actorOf(ctx), userId: id, password: "" });
    // The cached user behind GET /user shows two_factor_enabled: drop it now, not when the event lands.
    await cache.dropUser(id);
    ctx.status = 204;
  });
}
