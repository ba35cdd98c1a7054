import type Router from "@koa/router";
import type { Context } from "koa";
import type { oauth } from "@canopy/protos";
import { currentUser, field, formBody, requireWebUser, type WebDeps, type WebUser } from "../context";
import { consentPage } from "../pages/consent";
import { errorPage } from "../pages/error";
import { formActionSourceOf, redirectTo, sendPage } from "../respond";

/** The authorization request's parameters, as the consent forms echo them back. */
const REQUEST_FIELDS = [
  "client_id",
  "redirect_uri",
  "state",
  "response_type",
  "scope",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "response_mode",
] as const;

type RequestFields = Record<(typeof REQUEST_FIELDS)[number], string>;

/** Query parameters (GET), or the form with the query as fallback (the consent forms). */
function requestFields(ctx: Context): RequestFields {
  const source =
    ctx.method === "GET" || ctx.method === "HEAD" ? ctx.query : { ...ctx.query, ...formBody(ctx) };
  return Object.fromEntries(REQUEST_FIELDS.map((name) => [name, field(source, name)])) as RequestFields;
}

function authorizeRequest(
  fields: RequestFields,
  user: WebUser | undefined,
  approved = false,
  prompt = "",
): oauth.AuthorizeRequest {
  const signedInAt = user?.session.data.signedInAt;
  return {
    actor: user?.actor,
    clientId: fields.client_id,
    redirectUri: fields.redirect_uri,
    responseType: fields.response_type,
    scope: fields.scope,
    state: fields.state,
    codeChallenge: fields.code_challenge,
    codeChallengeMethod: fields.code_challenge_method,
    nonce: fields.nonce,
    responseMode: fields.response_mode,
    authTime: signedInAt ? new Date(signedInAt) : undefined,
    approved,
    prompt,
  };
}

/**
 * An error the client must not be sent to (unknown client, unregistered redirect URI): a page, with
 * 400 rather than GitLab's 200 so nothing mistakes it for success.
 */
function showError(ctx: Context, user: WebUser | undefined, error: oauth.OAuthError | undefined) {
  const page = errorPage({
    heading: "An error has occurred",
    pre: error?.description || "The authorization request is invalid.",
    username: user?.user.username,
  });
  sendPage(ctx, 400, page);
}

/** Where the auth service says the browser goes: back to the client, or our error page. */
function follow(ctx: Context, user: WebUser, answer: oauth.AuthorizeResponse) {
  if (answer.redirect) return redirectTo(ctx, answer.redirect);
  showError(ctx, user, answer.error);
}

export function authorizeRoutes(router: Router, deps: WebDeps) {
  const { oauth: client } = deps;

  router.get("/oauth/authorize", async (ctx) => {
    const fields = requestFields(ctx);
    const prompt = field(ctx.query, "prompt");
    // prompt=none never shows a page (OIDC Core §3.1.2.6): without a session the client hears
    // login_required. Otherwise an anonymous visitor signs in first, then comes back to this request.
    const silent = prompt.split(" ").includes("none");
    const user = silent ? await currentUser(ctx, deps) : await requireWebUser(ctx, deps);
    if (!user && !silent) return;
    const request = authorizeRequest(fields, user, false, prompt);
    const pre = await client.preAuthorize(request);
    if (pre.error) {
      if (pre.errorRedirect) return redirectTo(ctx, pre.errorRedirect);
      return showError(ctx, user, pre.error);
    }
    // The service answers prompt=none without a user with an error; this guards the consent page all the same.
    if (!user) return showError(ctx, undefined, undefined);
    if (pre.skipConsent) return follow(ctx, user, await client.authorize({ ...request, approved: true }));
    const page = consentPage({
      username: user.user.username,
      userDisplayName: user.user.name,
      admin: user.user.admin,
      application: pre.application!,
      ownerName: pre.ownerName,
      scopes: pre.scopes,
      request: { ...fields, scope: pre.scopes.join(" ") },
      csrf: user.session.data.csrf,
    });
    const source = formActionSourceOf(fields.redirect_uri);
    sendPage(ctx, 200, page, source ? [source] : []);
  });

  /** The consent forms: "Authorize" posts, "Deny" posts `_method=delete` (or sends a real DELETE). */
  const answer = async (ctx: Context) => {
    const fields = requestFields(ctx);
    const query = new URLSearchParams(Object.entries(fields).filter(([, v]) => v !== "")).toString();
    const user = await requireWebUser(ctx, deps, `/oauth/authorize?${query}`);
    if (!user) return;
    const denied = ctx.method === "DELETE" || field(formBody(ctx), "_method").toLowerCase() === "delete";
    follow(ctx, user, await client.authorize(authorizeRequest(fields, user, !denied)));
  };
  // Out-of-band clients (redirect URI urn:ietf:wg:oauth:2.0:oob) show the user the code to copy.
  router.get("/oauth/authorize/native", (ctx) => {
    const code = typeof ctx.query.code === "string" ? ctx.query.code : "";
    const page = errorPage({
      heading: "Authorization code",
      pre: code,
      detail: "Copy this code and paste it into the application.",
    });
    sendPage(ctx, code ? 200 : 400, page);
  });
  router.post("/oauth/authorize", answer);
  router.delete("/oauth/authorize", answer);
}
