import type { Next } from "koa";
import { status } from "@grpc/grpc-js";
import { ANONYMOUS, isServiceError, requestContext, type PromiseClient } from "@canopy/kit";
import { auth, type common } from "@canopy/protos";
import type { AuthenticationCache } from "../authn/cache";
import { extractSudo, extractToken } from "../authn/credentials";
import { insufficientScopeError, refusalError } from "../authn/refusals";
import type { ApiContext } from "../http/api-context";
import { acceptedScopes, registeredScopes, type ClassScopes } from "../http/scopes";
import { forbiddenError, HttpError, unauthorizedError } from "../http/errors";
import type { RecentWrites } from "../http/recent-writes";
import type { RateLimits } from "./rate-limit";

/**
 * Who is calling: sets `ctx.state.actor` (anonymous when no token was sent). A token that is
 * unknown, expired or revoked is refused even on routes open to anonymous callers. Requests without
 * a good token count against the per-IP limit; the others against their user's limit. The caller's
 * recent writes (http/recent-writes.ts) are read in the same tick as their rate-limit count, so
 * both share one trip to Redis; every call of the request then asks to read after them.
 */
export function authenticate(
  cache: AuthenticationCache,
  limits: RateLimits,
  client: PromiseClient<typeof auth.AuthServiceService>,
  writes: RecentWrites,
  /** For the deactivated user's refusal, which names where to sign in again. */
  externalUrl: string,
) {
  return async function authenticateRequest(ctx: ApiContext, next: Next) {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const token = extractToken(ctx, body);
    if (!token) {
      await limits.unauthenticated(ctx);
      // GitLab's sudo! needs a signed-in caller: Sudo without a token is 401, not an anonymous request.
      if (extractSudo(ctx, body)) throw unauthorizedError();
      ctx.state.actor = ANONYMOUS;
      return next();
    }
    const answer = await cache.authenticate(token);
    if (!answer.actor) {
      await limits.unauthenticated(ctx);
      throw refusalError(answer, externalUrl);
    }
    const [, recent] = await Promise.all([
      limits.authenticated(ctx, answer.actor.userId),
      writes.of(answer.actor.userId),
    ]);
    if (answer.impersonation) ctx.state.impersonation = true;
    const request = requestContext.getStore();
    const sudo = extractSudo(ctx, body);
    if (sudo) {
      const target = await sudoTarget(client, answer.actor, sudo);
      // The impersonated user's writes, not the administrator's, are the ones this request reads after.
      if (request) request.readAfter = await writes.of(target.id);
      ctx.state.actor = {
        ...answer.actor,
        userId: target.id,
        username: target.username,
        admin: target.admin,
        external: target.external,
        impersonatorId: answer.actor.userId,
      };
      ctx.state.user = target;
    } else {
      if (request) request.readAfter = recent;
      ctx.state.actor = answer.actor;
      // The caller's own user record, cached with the answer: GET /user needs no further call.
      ctx.state.user = answer.user;
    }
    return next();
  };
}

/** An administrator whose token has the `sudo` scope acting as another user (GitLab's `sudo!`). */
async function sudoTarget(
  client: PromiseClient<typeof auth.AuthServiceService>,
  admin: common.Actor,
  who: string,
) {
  if (!admin.admin) throw forbiddenError("Must be admin to use sudo");
  if (!admin.scopes.includes("sudo")) throw insufficientScopeError(["sudo"]);
  const byId = /^\d+$/.test(who);
  const target = await client
    .getUser({
      actor: admin,
      id: byId ? Number(who) : 0,
      username: byId ? "" : who,
      withCustomAttributes: false,
    })
    .catch((err) => {
      if (isServiceError(err) && err.code === status.NOT_FOUND) return undefined;
      throw err;
    });
  if (!target) throw new HttpError(404, { message: `404 User with ID or username '${who}' Not Found` });
  return target;
}

/** Routes that need a signed-in user answer 401 to anonymous callers. */
export async function requireUser(ctx: ApiContext, next: Next) {
  if (!ctx.state.actor.userId) throw unauthorizedError();
  return next();
}

/**
 * Scope check for token-authenticated callers: the token needs one of the scopes that reach the
 * endpoint with this method (http/scopes.ts). Anonymous callers have no token and pass (the route
 * decides). Under Sudo as another user the endpoint's scopes are not checked, as in GitLab
 * (lib/api/helpers.rb `current_user`: `validate_and_save_access_token!(...) unless sudo?`): the
 * token's `sudo` scope, checked by `sudoTarget`, already lets it do anything as anyone.
 */
export function requireScopes(own: ClassScopes | undefined) {
  return async function checkScopes(ctx: ApiContext, next: Next) {
    const { actor } = ctx.state;
    if (!actor.userId) return next();
    if (actor.impersonatorId && actor.impersonatorId !== actor.userId) return next();
    const accepted = acceptedScopes(own, ctx.method);
    if (!actor.scopes.some((s) => accepted.includes(s))) throw insufficientScopeError(registeredScopes(own));
    return next();
  };
}
