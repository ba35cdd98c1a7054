import Koa from "koa";
import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import { readiness, type Logger, type ReadinessCheck } from "@canopy/kit";
import type { ApiState } from "./http/api-context";
import { refuseEncodedBodies } from "./http/content-encoding";
import { HttpError, routeNotFoundError } from "./http/errors";
import { multipartFields } from "./http/multipart";
import { mountEndpoints } from "./http/mount-endpoints";
import { sendJson } from "./http/json";
import { refuseNulBytes } from "./http/null-bytes";
import { rememberWrites } from "./http/recent-writes";
import { recordActivity } from "./http/user-activity";
import { authenticate } from "./middleware/authenticate";
import { checkResponses } from "./openapi/check-responses";
import { accessLog, apiHeaders, errorHandler, requestId, traceRequest } from "./middleware/request";
import { API_ENDPOINTS } from "./routes/api";
import type { RouteDeps } from "./routes/context";
import { discoveryRoutes } from "./routes/discovery";
import { oauthRoutes } from "./routes/oauth";
import { webRoutes } from "./web";

export interface AppDeps extends RouteDeps {
  log: Logger;
  checks: ReadinessCheck[];
}

/**
 * The HTTP edge: health, the OAuth endpoints, `/api/v4` (authenticated, rate limited), the HTML pages
 * (session cookie; they replace the API headers with their own), then GitLab's catch-alls.
 */
/** Runs `middleware` for requests whose path passes `test`, and skips it for the rest. */
const only =
  (test: (path: string) => boolean, middleware: Koa.Middleware): Koa.Middleware =>
  (ctx, next) =>
    test(ctx.path) ? middleware(ctx, next) : next();

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.CANOPY_TRUST_PROXY });
  const limit = deps.config.CANOPY_MAX_BODY_BYTES;

  const health = new Router();
  health.get("/-/health", (ctx) => {
    ctx.type = "text/plain";
    ctx.body = "GitLab OK";
  });
  health.get("/-/liveness", (ctx) => sendJson(ctx, 200, { status: "ok" }));
  health.get("/-/readiness", async (ctx) => {
    const result = await readiness(deps.checks);
    sendJson(ctx, result.failed.length ? 503 : 200, result);
  });

  const api = new Router<ApiState>({ prefix: "/api/v4" });
  api.use(authenticate(deps.cache, deps.limits, deps.auth, deps.writes, deps.config.CANOPY_EXTERNAL_URL));
  api.use(recordActivity(deps.activity, (ctx) => Boolean(ctx.state.impersonation)));
  api.use(rememberWrites(deps.writes));
  mountEndpoints(api, API_ENDPOINTS, deps);

  const provider = new Router();
  oauthRoutes(provider, deps);
  discoveryRoutes(provider, deps);

  app.use(requestId).use(traceRequest).use(accessLog(deps.log));
  const checkFile = deps.config.CANOPY_OPENAPI_CHECK_FILE;
  if (checkFile) app.use(only((path) => path.startsWith("/api/v4/"), checkResponses(checkFile)));
  app
    .use(errorHandler(deps.log))
    .use(health.routes())
    .use(apiHeaders)
    .use(refuseEncodedBodies)
    .use(
      bodyParser({
        enableTypes: ["json", "form"],
        // Grape reads parameters from the body of a DELETE as well (a token, for one).
        parsedMethods: ["POST", "PUT", "PATCH", "DELETE"],
        jsonLimit: limit,
        formLimit: limit,
        encoding: "utf-8",
      }),
    )
    .use(multipartFields(limit))
    .use(refuseNulBytes)
    // Each router sees only its own paths: the API, the busiest, is not matched against the others.
    .use(only((path) => path.startsWith("/api/v4/"), api.routes() as Koa.Middleware))
    .use(only((path) => !path.startsWith("/api/"), provider.routes() as Koa.Middleware))
    .use(only((path) => !path.startsWith("/api/"), webRoutes(deps) as Koa.Middleware))
    .use(async (ctx) => {
      if (ctx.path.startsWith("/api/v3/")) {
        throw new HttpError(410, { error: "API V3 is no longer supported. Use API V4 instead." });
      }
      throw routeNotFoundError();
    });
  return app;
}
