import type Router from "@koa/router";
import type { Next } from "koa";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { rawParams, type RouteDeps } from "../routes/context";
import type { ApiContext, ApiState } from "./api-context";
import type { Endpoint } from "./endpoint";
import { forbiddenError, paramError } from "./errors";
import { parseParams } from "./params";

/**
 * Runs a declared endpoint: parameters, cross-field rules, the admin check (before the parameters
 * when declared so), then its handler.
 */
function runEndpoint(e: Endpoint, deps: RouteDeps) {
  const run = async (ctx: ApiContext) => {
    const { actor, user } = ctx.state;
    const refuseNonAdmins = () => {
      if (e.access === "admin" && !actor.admin) throw forbiddenError();
    };
    if (e.adminBeforeParams) refuseNonAdmins();
    const params = parseParams(e.params, rawParams(ctx));
    const problems = (e.validate?.(params) ?? []).filter((p): p is string => typeof p === "string");
    if (problems.length) throw paramError(problems.join(", "));
    refuseNonAdmins();
    await e.handler({ params, actor, user, ctx, deps });
  };
  // Stack traces and profiles then name the endpoint's handler, not an anonymous closure.
  Object.defineProperty(run, "name", { value: e.handler.name || "endpoint" });
  return run;
}

/** Registers each endpoint on the /api/v4 router with the checks its declaration asks for. */
export function mountEndpoints(router: Router<ApiState>, endpoints: readonly Endpoint[], deps: RouteDeps) {
  for (const e of endpoints) {
    const steps: ((ctx: ApiContext, next: Next) => unknown)[] = [];
    if (e.access !== "anonymous") steps.push(requireUser);
    steps.push(requireScopes(...(e.scopes ?? [])), runEndpoint(e, deps));
    router.register(e.path, [e.method], steps);
  }
}
