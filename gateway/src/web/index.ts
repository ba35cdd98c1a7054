import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import type { Context, Next } from "koa";
import type { Logger } from "@canopy/kit";
import { toHttpError } from "../http/errors";
import type { RouteDeps } from "../routes/context";
import type { WebDeps } from "./context";
import { verifyCsrf } from "./csrf";
import { errorPage } from "./pages/error";
import { sendPage } from "./respond";
import { applicationRoutes } from "./routes/applications";
import { authorizeRoutes } from "./routes/authorize";
import { signInRoutes } from "./routes/sign-in";
import { twoFactorRoutes } from "./routes/two-factor";
import { groupAvatarRoutes } from "./routes/group-avatars";
import { userAvatarRoutes } from "./routes/user-avatars";
import { SessionStore } from "./session";

// A line under the heading for the errors a person can do something about.
const ADVICE: Record<number, string> = {
  404: "The page or item you were looking for could not be found.",
  422: "The form was not sent from this session. Go back, reload the page and try again.",
  429: "Too many attempts. Wait a minute and try again.",
  503: "A service Canopy depends on is not answering. Try again in a moment.",
};

function headingOf(body: unknown, status: number): string {
  if (typeof body === "string") return body.trim();
  const b = body as { message?: unknown; error?: unknown } | undefined;
  const text = typeof b?.message === "string" ? b.message : typeof b?.error === "string" ? b.error : "";
  return text || `${status} Error`;
}

/** Pages fail as pages: an HTML answer with the page headers, never the API's JSON. */
function renderPageErrors(log: Logger) {
  return async function pageErrors(ctx: Context, next: Next) {
    try {
      await next();
    } catch (err) {
      const known = toHttpError(err) ?? koaError(err);
      if (!known || known.status >= 500) log.error({ err }, "page request failed");
      const status = known?.status ?? 500;
      if (known) ctx.set(known.headers);
      const heading = known ? headingOf(known.body, status) : "500 Internal Server Error";
      sendPage(ctx, status, errorPage({ heading, detail: ADVICE[status] }));
    }
  };
}

/** Koa's own client errors (a body too large or malformed), which it marks as safe to show. */
function koaError(err: unknown) {
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e.status !== "number" || e.status < 400 || e.status >= 500 || !e.expose) return undefined;
  return { status: e.status, body: String(e.message ?? ""), headers: {} };
}

/**
 * The server-rendered pages: sign-in, applications, the OAuth authorization page, two-factor set-up. Each request gets
 * its session loaded, and every state-changing one must carry the session's CSRF token, which a
 * form-encoded DELETE (the consent page's "Deny") carries in its body: it is parsed here unless the
 * app's body parser already did.
 */
export function webRoutes(deps: RouteDeps & { log: Logger }) {
  const sessions = new SessionStore(deps.redis, deps.config);
  const web: WebDeps = { ...deps, sessions };
  const limit = deps.config.CANOPY_MAX_BODY_BYTES;
  const router = new Router();
  router.use(
    renderPageErrors(deps.log),
    async (ctx, next) => {
      ctx.state.session = await sessions.load(ctx);
      return next();
    },
    bodyParser({ enableTypes: ["form"], parsedMethods: ["DELETE"], formLimit: limit, encoding: "utf-8" }),
    verifyCsrf,
  );
  signInRoutes(router, web);
  applicationRoutes(router, web);
  authorizeRoutes(router, web);
  twoFactorRoutes(router, web);
  groupAvatarRoutes(router, web);
  userAvatarRoutes(router, web);
  return router.routes();
}
