import type Router from "@koa/router";
import type { Next } from "koa";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { rawParams, type RouteDeps } from "../routes/context";
import type { ApiContext, ApiState } from "./api-context";
import type { Endpoint } from "./endpoint";
import { forbiddenError, HttpError, paramError } from "./errors";
import { sendKeptAnswer } from "./json";
import { uploadedFiles } from "./multipart";
import { isFileParam, parseParams } from "./params";

/**
 * The request's file parts as parameters, when the endpoint declares each of their fields as a file
 * (param.file()); a file part anywhere else is refused, so no handler ever gets bytes it did not ask for.
 */
function declaredFiles(e: Endpoint, ctx: ApiContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, files] of Object.entries(uploadedFiles(ctx))) {
    if (!isFileParam(e.params[field] as never))
      throw new HttpError(400, { error: "file uploads are not accepted here" });
    // Several files under one name are not one file: the parameter's own check calls that invalid.
    out[field] = files.length === 1 ? files[0] : files;
  }
  return out;
}

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
    const params = parseParams(e.params, { ...rawParams(ctx), ...declaredFiles(e, ctx) });
    const problems = (e.validate?.(params) ?? []).filter((p): p is string => typeof p === "string");
    if (problems.length) throw paramError(problems.join(", "));
    refuseNonAdmins();
    if (e.cacheAnswers)
      return answerFromCache(ctx, deps, () => e.handler({ params, actor, user, ctx, deps }));
    await e.handler({ params, actor, user, ctx, deps });
    // Whatever a write changed, no gateway may answer a read from before it (answer-cache.ts).
    if (e.method !== "GET" && ctx.status < 400) await deps.answers.invalidate();
  };
  // Stack traces and profiles then name the endpoint's handler, not an anonymous closure.
  Object.defineProperty(run, "name", { value: e.handler.name || "endpoint" });
  return run;
}

/** Serves a kept answer of this caller's request, or runs `handle` and keeps a 200. */
async function answerFromCache(ctx: ApiContext, deps: RouteDeps, handle: () => Promise<void> | void) {
  const key = await deps.answers.keyFor(ctx.state.actor, ctx.path, ctx.query);
  // A replay may be gzipped, so every answer of a cached read says it depends on Accept-Encoding.
  ctx.vary("Accept-Encoding");
  const kept = key ? deps.answers.get(key) : undefined;
  if (kept) {
    ctx.set(kept.headers);
    sendKeptAnswer(ctx, kept, deps.answers.gzipped(key!, kept));
    return;
  }
  const before = new Set(Object.keys(ctx.response.headers));
  await handle();
  if (!key || ctx.status !== 200 || typeof ctx.body !== "string") return;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.response.headers))
    if (!before.has(name) && name !== "content-type") headers[name] = String(value);
  deps.answers.set(key, { status: ctx.status, body: Buffer.from(ctx.body), headers });
}

/** Registers each endpoint on the /api/v4 router with the checks its declaration asks for. */
export function mountEndpoints(router: Router<ApiState>, endpoints: readonly Endpoint[], deps: RouteDeps) {
  for (const e of endpoints) {
    const steps: ((ctx: ApiContext, next: Next) => unknown)[] = [];
    if (e.access !== "anonymous") steps.push(requireUser);
    steps.push(requireScopes(e.scopes), runEndpoint(e, deps));
    router.register(e.path, [e.method], steps);
  }
}
