import type Router from "@koa/router";
import type { Context } from "koa";
import { auth, oauth } from "@canopy/protos";
import { currentUser, ensureSession, field, formBody, type WebDeps } from "../context";
import { homePage } from "../pages/home";
import { signInPage, type SignInTab } from "../pages/sign-in";
import { signInCodePage } from "../pages/sign-in-code";
import { signOutPage } from "../pages/sign-out";
import { HttpError } from "../../http/errors";
import { formActionSourceOf, redirectTo, sendPage } from "../respond";
import { safeReturnPath } from "../return-to";
import { sessionOf, type Session } from "../session";

const AFTER_SIGN_IN = "/profile/applications";
/** How long the code page stays valid after the password was accepted. */
const CODE_STEP_MS = 10 * 60_000;

// GitLab's flash texts (Devise locale and GitLab's overrides). A locked account gets the same text as
// a wrong password (Devise's paranoid mode): the answer must not tell which accounts exist or are locked.
const INVALID = "Invalid login or password.";
const BLOCKED =
  "Your account has been blocked. Please contact your GitLab administrator if you think this is an error.";
const PENDING_APPROVAL =
  "Your account is pending approval from your GitLab administrator and hence blocked. Please contact your GitLab administrator if you think this is an error.";
const REFUSALS: Record<number, string> = {
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID]: INVALID,
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED]: INVALID,
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_BLOCKED]: BLOCKED,
  [oauth.SignInRefusal.SIGN_IN_REFUSAL_PENDING_APPROVAL]: PENDING_APPROVAL,
};
const INVALID_CODE = "Invalid two-factor code.";
// Past the password the user has proven who they are: GitLab then says why (locked_user_redirect).
const CODE_REFUSALS: Record<number, string> = {
  [auth.SignInCodeRefusal.SIGN_IN_CODE_REFUSAL_LOCKED]: "Your account is locked.",
  [auth.SignInCodeRefusal.SIGN_IN_CODE_REFUSAL_BLOCKED]: BLOCKED,
  [auth.SignInCodeRefusal.SIGN_IN_CODE_REFUSAL_PENDING_APPROVAL]: PENDING_APPROVAL,
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

/** GitLab's `user[login]`, `user[password]` and `user[otp_attempt]` form names, or the plain ones. */
function credentials(ctx: Context) {
  const body = formBody(ctx);
  const nested = typeof body.user === "object" && body.user !== null ? body.user : body;
  return {
    login: field(nested, "login"),
    password: field(nested, "password"),
    /** Undefined when the form is the password form. */
    otpAttempt: "otp_attempt" in nested ? field(nested, "otp_attempt") : undefined,
  };
}

/** The LDAP form's `username` and `password` (omniauth-ldap's names). */
function ldapCredentials(ctx: Context) {
  const body = formBody(ctx);
  return { login: field(body, "username"), password: field(body, "password") };
}

/** How long the list of LDAP servers (fixed at the auth service's start) is reused. */
const PROVIDERS_TTL_MS = 30_000;

const awaitingCode = (session: Session) =>
  Boolean(session.data.otpUserId && Date.now() - (session.data.otpStartedAt ?? 0) < CODE_STEP_MS);

export function signInRoutes(router: Router, deps: WebDeps) {
  const { oauth: client, auth: authClient, sessions, limits } = deps;

  let providers: { tabs: SignInTab[]; until: number } | undefined;
  /** The sign-in page's LDAP tabs, one per configured server. */
  async function ldapTabs(): Promise<SignInTab[]> {
    if (!providers || providers.until < Date.now()) {
      const answer = await client.listSignInProviders({});
      providers = { tabs: answer.providers, until: Date.now() + PROVIDERS_TTL_MS };
    }
    return providers.tabs;
  }

  /** The sign-in is complete: a new session id for the signed-in user, and on to where they were going. */
  async function finish(ctx: Context, session: Session, userId: number) {
    const target = safeReturnPath(session.data.returnTo) ?? AFTER_SIGN_IN;
    await sessions.regenerate(ctx, session, { userId, signedInAt: Date.now() });
    redirectTo(ctx, target);
  }

  /** Back to the password form, the half sign-in forgotten. */
  async function restart(ctx: Context, session: Session, alert?: string) {
    const { returnTo } = session.data;
    const fresh = await sessions.regenerate(ctx, session, { userId: 0, signedInAt: 0, returnTo });
    const page = signInPage({ csrf: fresh.data.csrf, alert, ldap: await ldapTabs() });
    sendPage(ctx, 200, page, formActionsAfter(returnTo));
  }

  /** A login and password, checked by the standard form (provider "") or an LDAP server. */
  async function passwordStep(ctx: Context, session: Session, provider = "") {
    const { login, password } = provider ? ldapCredentials(ctx) : credentials(ctx);
    // The address (behind a trusted proxy, X-Forwarded-For's) is recorded with a completed sign-in.
    const answer = await client.signIn({ login, password, provider, clientIp: ctx.ip });
    if (!answer.user) {
      const alert = REFUSALS[answer.refusal] ?? INVALID;
      const ldap = await ldapTabs();
      const page = signInPage({ csrf: session.data.csrf, login, alert, ldap, active: provider });
      return sendPage(ctx, 200, page, formActionsAfter(session.data.returnTo));
    }
    if (!answer.user.twoFactorEnabled) return finish(ctx, session, answer.user.id);
    // Half signed in: the code is asked in a new session (an id planted before the password is worthless).
    const half = await sessions.regenerate(ctx, session, {
      userId: 0,
      signedInAt: 0,
      returnTo: session.data.returnTo,
      otpUserId: answer.user.id,
      otpStartedAt: Date.now(),
    });
    sendPage(ctx, 200, signInCodePage({ csrf: half.data.csrf }), formActionsAfter(half.data.returnTo));
  }

  async function codeStep(ctx: Context, session: Session, code: string) {
    if (!awaitingCode(session)) return restart(ctx, session);
    const answer = await authClient.verifySignInCode({
      userId: session.data.otpUserId!,
      code,
      clientIp: ctx.ip,
    });
    if (answer.user) return finish(ctx, session, answer.user.id);
    const refusal = CODE_REFUSALS[answer.refusal];
    if (refusal) return restart(ctx, session, refusal);
    const page = signInCodePage({ csrf: session.data.csrf, alert: INVALID_CODE });
    sendPage(ctx, 200, page, formActionsAfter(session.data.returnTo));
  }

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
    const page = signInPage({ csrf: session.data.csrf, ldap: await ldapTabs() });
    sendPage(ctx, 200, page, formActionsAfter(session.data.returnTo));
  });

  router.post("/users/sign_in", async (ctx) => {
    // The CSRF check has run, so a session exists; throttling comes before any password or code is checked.
    const session = sessionOf(ctx)!;
    await limits.signIn(ctx);
    const { otpAttempt } = credentials(ctx);
    if (otpAttempt !== undefined) return codeStep(ctx, session, otpAttempt);
    return passwordStep(ctx, session);
  });

  // GitLab's omniauth callback for an LDAP server's tab; a provider that is not configured is a 404.
  router.post("/users/auth/:provider/callback", async (ctx) => {
    const session = sessionOf(ctx)!;
    const provider = ctx.params.provider ?? "";
    if (!(await ldapTabs()).some((t) => t.provider === provider))
      throw new HttpError(404, { message: "404 Not Found" });
    await limits.signIn(ctx);
    return passwordStep(ctx, session, provider);
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
