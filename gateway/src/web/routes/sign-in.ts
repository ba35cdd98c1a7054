import type Router from "@koa/router";
import type { Context } from "koa";
import { oauth } from "@canopy/protos";
import { currentUser, ensureSession, field, formBody, type WebDeps } from "../context";
import { homePage } from "../pages/home";
import { signInPage } from "../pages/sign-in";
import { signOutPage } from "../pages/sign-out";
import { formActionSourceOf, redirectTo, sendPage } from "../respond";
import { safeReturnPath } from "../return-to";
import { sessionOf } from "../session";

const AFTER_SIGN_IN = "/profile/applications";

// GitLab's flash texts (Devise locale and GitLab's overrides).
const REFUSALS: Record<number, string> = {
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID]: "Invalid login or password.",
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED]: "Your account is locked.",
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_BLOCKED]:
    "Your account has been blocked. Please contact your GitLab administrator if you think this is an error.",
};

/**
 * When sign-in leads on to /oauth/authorize, that request may redirect straight to the client
 * (trusted application), and Chromium checks the sign-in form's `form-action` on every hop.
 */
function formActionsAfter(returnTo: string | undefined): string[] {
  if (!returnTo?.startsWith("/oauth/authorize?")) return [];
  const redirectUri = new URL(returnTo, "http://canopy.invalid").searchParams.get("redirect_uri");
  const source = redirectUri ? formActionSourceOf(redirectUri) : undefined;
  return source ? [source] : [];
}

/** The user's `{login, password}` from GitLab's `user[login]` form names, or plain `login`. */
function credentials(ctx: Context) {
  const body = formBody(ctx);
  const nested = typeof body.user === "object" && body.user !== null ? body.user : body;
  return { login: field(nested, "login"), password: field(nested, "password") };
}

export function signInRoutes(router: Router, deps: WebDeps) {
  const { oauth: client, sessions, limits } = deps;

  router.get("/", async (ctx) => {
    const found = await currentUser(ctx, deps);
    sendPage(ctx, 200, homePage({ username: found?.user.username }));
  });

  router.get("/users/sign_in", async (ctx) => {
    // Asked first: a blocked user's session is dropped, and a fresh one made for the form.
    const signedIn = await currentUser(ctx, deps);
    const session = await ensureSession(ctx, deps);
    // A link may name where to go next; it is kept only if it is a path on this site.
    const asked = safeReturnPath(ctx.query.return_to);
    if (asked) {
      session.data.returnTo = asked;
      await sessions.save(session);
    }
    if (signedIn) return redirectTo(ctx, safeReturnPath(session.data.returnTo) ?? AFTER_SIGN_IN);
    sendPage(ctx, 200, signInPage({ csrf: session.data.csrf }), formActionsAfter(session.data.returnTo));
  });

  router.post("/users/sign_in", async (ctx) => {
    // The CSRF check has run, so a session exists; throttling comes before any password is checked.
    const session = sessionOf(ctx)!;
    await limits.signIn(ctx);
    const { login, password } = credentials(ctx);
    const answer = await client.signIn({ login, password });
    if (!answer.user) {
      const alert = REFUSALS[answer.refusal] ?? REFUSALS[oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID];
      const page = signInPage({ csrf: session.data.csrf, login, alert });
      return sendPage(ctx, 200, page, formActionsAfter(session.data.returnTo));
    }
    const target = safeReturnPath(session.data.returnTo) ?? AFTER_SIGN_IN;
    await sessions.regenerate(ctx, session, { userId: answer.user.id, signedInAt: Date.now() });
    redirectTo(ctx, target);
  });

  router.get("/users/sign_out", async (ctx) => {
    const found = await currentUser(ctx, deps);
    if (!found) return redirectTo(ctx, "/users/sign_in");
    sendPage(ctx, 200, signOutPage({ csrf: found.session.data.csrf, username: found.user.username }));
  });

  const signOut = async (ctx: Context) => {
    await sessions.destroy(ctx, sessionOf(ctx));
    redirectTo(ctx, "/users/sign_in");
  };
  router.post("/users/sign_out", signOut);
  router.delete("/users/sign_out", signOut);
}
