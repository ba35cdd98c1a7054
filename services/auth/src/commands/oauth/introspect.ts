import type { oauth } from "@canopy/protos";
import { OAuthRefusal, oauthError } from "../../domain/oauth/errors";
import { tokenDigests } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { findByRefreshDigest, type OAuthTokenWithOwner } from "../../store/oauth-tokens";
import { authenticateClient } from "./client-auth";
import { lookupAccessToken } from "./live-token";

const inactive = (): oauth.IntrospectResponse => ({
  active: false,
  scope: "",
  clientId: "",
  username: "",
  tokenType: "",
  exp: 0,
  iat: 0,
  sub: "",
});

/**
 * POST /oauth/introspect (RFC 7662), as Doorkeeper has it: the caller is a client (credentials) or
 * holds another live token of an application. Tokens of other applications look inactive.
 */
export async function introspect(
  deps: Deps,
  req: oauth.IntrospectRequest,
): Promise<oauth.IntrospectResponse> {
  let callerAppId: number | undefined;
  let viaBearer = false;
  try {
    callerAppId = (await authenticateClient(deps, req.client))?.id;
  } catch (err) {
    if (err instanceof OAuthRefusal) return { ...inactive(), error: err.error };
    throw err;
  }
  if (callerAppId === undefined) {
    if (!req.bearerToken) {
      const description =
        "Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.";
      return { ...inactive(), error: oauthError("invalid_request", description) };
    }
    // RFC 7662 §2.1 (Doorkeeper): the bearer must be another live token than the one asked about.
    const bearer = await lookupAccessToken(deps, req.bearerToken);
    if (!bearer.live || !ownerMayAct(bearer.token) || req.bearerToken === req.token)
      return { ...inactive(), error: oauthError("invalid_token") };
    callerAppId = bearer.token.application_id ?? undefined;
    viaBearer = true;
  }
  const found = await lookupAccessToken(deps, req.token);
  const token = found.live ? found.token : await findLiveRefresh(deps, req.token);
  // A client may look at its own tokens and at tokens of no application; a bearer token only at
  // tokens of its own application (or, without one, of none), as Doorkeeper's default policy.
  const tokenAppId = token?.application_id ?? undefined;
  const allowed = viaBearer
    ? tokenAppId === callerAppId
    : tokenAppId === undefined || tokenAppId === callerAppId;
  // RFC 7662 §2.2: a token its owner may no longer use (blocked user) is not active.
  if (!token || !allowed || !ownerMayAct(token)) return inactive();
  return {
    active: true,
    scope: token.scopes.join(" "),
    clientId: token.application_uid ?? "",
    username: token.username ?? "",
    tokenType: "Bearer",
    iat: Math.floor(token.created_at.getTime() / 1000),
    exp: token.expires_in === null ? 0 : Math.floor(token.created_at.getTime() / 1000) + token.expires_in,
    sub: token.user_id ? String(token.user_id) : "",
  };
}

/** Tokens of no user (client credentials) have no owner to block. */
const ownerMayAct = (t: OAuthTokenWithOwner) => t.user_id === null || t.user_state === "active";

async function findLiveRefresh(deps: Deps, value: string) {
  const row = await findByRefreshDigest(deps.pool, tokenDigests(deps, value));
  const expired = row?.refresh_expires_at && row.refresh_expires_at.getTime() <= Date.now();
  return row && !row.revoked_at && !expired ? row : undefined;
}
