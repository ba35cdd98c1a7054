import { requireSignedIn, withTransaction } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { missingParameter, oauthError, type OAuthErrorCode } from "../../domain/oauth/errors";
import { CHALLENGE_METHODS, isValidVerifier } from "../../domain/oauth/pkce";
import { isRegisteredRedirect, OOB_URI, withParams } from "../../domain/oauth/redirect-uri";
import { effectiveScopes, grantableTo } from "../../domain/oauth/scopes";
import { tokenDigest } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { findApplicationByUid, toApplication, type ApplicationRow } from "../../store/oauth-applications";
import { insertGrant } from "../../store/oauth-grants";
import { hasMatchingToken } from "../../store/oauth-tokens";
import { findUserById } from "../../store/users";
import { issueTokens } from "./issue";
import { randomHex } from "./secrets";

type Refused = { error: oauth.OAuthError; redirect: string };
type Checked =
  | Refused
  | {
      error?: undefined;
      app: ApplicationRow;
      scopes: string[];
      implicit: boolean;
      /** An error sent back to the (verified) client with `state`. */
      back: (code: OAuthErrorCode, description?: string) => Refused;
    };

const PROMPTS = ["none", "login", "consent", "select_account"];

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Doorkeeper's pre-authorization checks, in its order. Until the client and its redirect URI are
 * known good, errors are shown on a page (redirect ""), never sent to an unverified address; after
 * that they go back to the client with `state`.
 */
async function check(deps: Deps, req: oauth.AuthorizeRequest): Promise<Checked> {
  const page = (error: oauth.OAuthError) => ({ error, redirect: "" });
  if (!req.clientId) return page(missingParameter("client_id"));
  const app = await findApplicationByUid(deps.pool, req.clientId);
  if (!app) return page(oauthError("invalid_client"));
  if (!req.redirectUri || !isRegisteredRedirect(app.redirect_uri, req.redirectUri)) {
    return page(oauthError("invalid_redirect_uri"));
  }
  const implicit = req.responseType === "token";
  const outOfBand = req.redirectUri === OOB_URI;
  const back = (code: OAuthErrorCode, description?: string) => {
    const error = description ? { error: code, description } : oauthError(code);
    if (outOfBand) return page(error);
    const params = { error: error.error, error_description: error.description, state: req.state };
    return {
      error,
      redirect: withParams(req.redirectUri, params, implicit || req.responseMode === "fragment"),
    };
  };
  if (!req.responseType) return back("invalid_request", missingParameter("response_type").description);
  const supported =
    req.responseType === "code" || (implicit && !outOfBand && deps.config.CANOPY_OAUTH_IMPLICIT_GRANT);
  if (!supported) return back("unsupported_response_type");
  // A token in a URL fragment cannot be kept secret: confidential applications use the code flow.
  if (implicit && app.confidential) return back("unauthorized_client");
  if (req.responseMode && !["query", "fragment"].includes(req.responseMode))
    return back("unsupported_response_mode");
  const scopes = effectiveScopes(req.scope, app.scopes);
  if (!scopes || !grantableTo(scopes, Boolean(req.actor?.admin))) return back("invalid_scope");
  const asked = req.prompt.split(" ").filter(Boolean);
  if (!asked.every((p) => PROMPTS.includes(p)) || (asked.includes("none") && asked.length > 1))
    return back("invalid_request");
  if (!implicit) {
    const method = req.codeChallengeMethod;
    if (req.codeChallenge) {
      if (!(CHALLENGE_METHODS as readonly string[]).includes(method))
        return back("invalid_code_challenge_method");
      const wellFormed =
        method === "S256" ? S256_CHALLENGE.test(req.codeChallenge) : isValidVerifier(req.codeChallenge);
      if (!wellFormed) return back("invalid_request", "The code_challenge is malformed.");
    }
    if (deps.config.CANOPY_OAUTH_REQUIRE_PKCE && !app.confidential) {
      if (!req.codeChallenge) return back("invalid_request", "Code challenge is required.");
      if (method !== "S256")
        return back("invalid_request", "Public clients must use code_challenge_method S256.");
    }
  }
  return { app, scopes, implicit, back };
}

/** Whether the OIDC `prompt` parameter (space-separated) holds this value. */
const prompts = (req: oauth.AuthorizeRequest, value: string) => req.prompt.split(" ").includes(value);

export async function preAuthorize(
  deps: Deps,
  req: oauth.AuthorizeRequest,
): Promise<oauth.PreAuthorizeResponse> {
  // prompt=none is answered without a user: login_required, sent back to the client (OIDC Core §3.1.2.6).
  if (!prompts(req, "none")) requireSignedIn(req.actor);
  const checked = await check(deps, req);
  const refused = (r: Refused) => ({
    error: r.error,
    errorRedirect: r.redirect,
    scopes: [],
    ownerName: "",
    skipConsent: false,
  });
  if (checked.error) return refused(checked);
  const { app, scopes, back } = checked;
  if (!req.actor?.userId) return refused(back("login_required"));
  const owner = app.owner_id ? await findUserById(deps.pool, app.owner_id) : undefined;
  // GitLab: trusted applications never ask; confidential ones not again for the same scopes.
  const skipConsent =
    !prompts(req, "consent") &&
    (app.trusted ||
      (app.confidential && (await hasMatchingToken(deps.pool, req.actor.userId, app.id, scopes))));
  if (!skipConsent && prompts(req, "none")) return refused(back("consent_required"));
  return {
    application: toApplication(app),
    ownerName: owner?.name ?? "",
    scopes,
    skipConsent,
    errorRedirect: "",
  };
}

/** The user's answer: a code (or, implicit, a token in the fragment) or access_denied, sent to the client. */
export async function authorize(deps: Deps, req: oauth.AuthorizeRequest): Promise<oauth.AuthorizeResponse> {
  const actor = requireSignedIn(req.actor);
  const checked = await check(deps, req);
  if (checked.error) return { error: checked.error, redirect: checked.redirect };
  const { app, scopes, implicit } = checked;
  const inFragment = implicit || req.responseMode === "fragment";
  if (!req.approved) {
    if (req.redirectUri === OOB_URI) return { error: oauthError("access_denied"), redirect: "" };
    const denied = oauthError("access_denied");
    const params = { error: denied.error, error_description: denied.description, state: req.state };
    return { redirect: withParams(req.redirectUri, params, inFragment) };
  }
  if (implicit) {
    const issued = await withTransaction(deps.pool, (tx) =>
      issueTokens(deps, tx, {
        applicationId: app.id,
        clientId: app.uid,
        userId: actor.userId,
        scopes,
        withRefresh: false,
      }),
    );
    const r = issued.reply;
    const params = {
      access_token: r.accessToken,
      token_type: r.tokenType,
      expires_in: String(r.expiresIn),
      scope: r.scope,
      state: req.state,
    };
    return { redirect: withParams(req.redirectUri, params, true) };
  }
  const code = randomHex();
  await insertGrant(deps.pool, {
    application_id: app.id,
    user_id: actor.userId,
    code_digest: tokenDigest(deps.tokenKey, code),
    redirect_uri: req.redirectUri,
    scopes,
    code_challenge: req.codeChallenge || null,
    code_challenge_method: req.codeChallenge ? req.codeChallengeMethod : null,
    nonce: req.nonce || null,
    auth_time: req.authTime ?? null,
    lifetime_seconds: deps.config.CANOPY_OAUTH_CODE_SECONDS,
  });
  if (req.redirectUri === OOB_URI) {
    const native = `${deps.config.CANOPY_EXTERNAL_URL.replace(/\/+$/, "")}/oauth/authorize/native`;
    return { redirect: withParams(native, { code }) };
  }
  return { redirect: withParams(req.redirectUri, { code, state: req.state }, inFragment) };
}
