import type { Context } from "koa";
import { status } from "@grpc/grpc-js";
import { isServiceError, type Logger } from "@canopy/kit";
import { auth, common } from "@canopy/protos";
import type { RouteDeps } from "../routes/context";
import { redirectTo } from "./respond";
import { safeReturnPath } from "./return-to";
import { sessionOf, type Session, type SessionStore } from "./session";

export interface WebDeps extends RouteDeps {
  log: Logger;
  sessions: SessionStore;
}

/** The signed-in user of a page request, as the services see them. */
export interface WebUser {
  user: auth.User;
  actor: common.Actor;
  session: Session;
}

export const sessionActor = (
  user: Pick<auth.User, "id" | "username" | "admin" | "external">,
): common.Actor => ({
  userId: user.id,
  username: user.username,
  admin: user.admin,
  external: user.external,
  scopes: [],
  tokenKind: common.TokenKind.TOKEN_KIND_SESSION,
  tokenId: 0,
  impersonatorId: 0,
});

/**
 * States whose user's session ends (GitLab's `User#blocked?`: Devise refuses them): blocked by an
 * administrator or by the LDAP directory, banned, waiting for approval. A deactivated user keeps it.
 */
const SIGNED_OUT_STATES = new Set([
  auth.UserState.USER_STATE_BLOCKED,
  auth.UserState.USER_STATE_LDAP_BLOCKED,
  auth.UserState.USER_STATE_BLOCKED_PENDING_APPROVAL,
  auth.UserState.USER_STATE_BANNED,
]);

/**
 * The session's user, fetched fresh on every request so a blocked or deleted user is signed out at
 * once (their session is dropped), not when it expires.
 */
export async function currentUser(ctx: Context, deps: WebDeps): Promise<WebUser | undefined> {
  if (ctx.state.webUser !== undefined) return ctx.state.webUser || undefined;
  const session = sessionOf(ctx);
  let found: WebUser | undefined;
  if (session?.data.userId) {
    const self = sessionActor({ id: session.data.userId, username: "", admin: false, external: false });
    const user = await deps.auth
      .getUser({ actor: self, id: session.data.userId, username: "", withCustomAttributes: false })
      .catch((err) => {
        if (isServiceError(err) && err.code === status.NOT_FOUND) return undefined;
        throw err;
      });
    if (user && !SIGNED_OUT_STATES.has(user.state)) {
      found = { user, actor: sessionActor(user), session };
    } else {
      await deps.sessions.destroy(ctx, session);
      ctx.state.session = undefined;
    }
  }
  ctx.state.webUser = found ?? false;
  return found;
}

/** The request's session, created (anonymous) when it has none, so its forms can carry a CSRF token. */
export async function ensureSession(ctx: Context, deps: WebDeps): Promise<Session> {
  const existing = sessionOf(ctx);
  if (existing) return existing;
  const created = await deps.sessions.create(ctx);
  ctx.state.session = created;
  return created;
}

/**
 * For pages that need a signed-in user: anonymous visitors are sent to sign in and brought back
 * afterwards (to the page itself; a form post returns to the page the form was on).
 */
export async function requireWebUser(ctx: Context, deps: WebDeps, returnTo = ctx.originalUrl) {
  const found = await currentUser(ctx, deps);
  if (found) return found;
  const session = await ensureSession(ctx, deps);
  const path = safeReturnPath(returnTo);
  if (path) {
    session.data.returnTo = path;
    await deps.sessions.save(session);
  }
  redirectTo(ctx, "/users/sign_in");
  return undefined;
}

/** A form field as text: qs may give arrays or objects for crafted names, which count as absent. */
export const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

export const formBody = (ctx: Context) => (ctx.request.body ?? {}) as Record<string, unknown>;
