import type { oauth } from "@canopy/protos";
import { oauthError } from "../../domain/oauth/errors";
import type { Deps } from "../../deps";
import { userInfoClaims } from "./id-token";
import { lookupAccessToken } from "./live-token";

/** GET|POST /oauth/userinfo: needs a live token with the `openid` scope. */
export async function userInfo(deps: Deps, req: oauth.UserInfoRequest): Promise<oauth.UserInfoResponse> {
  const found = await lookupAccessToken(deps, req.token);
  if (!found.live || !found.token.user_id || found.token.user_state !== "active") {
    return { error: oauthError("invalid_token"), claimsJson: "" };
  }
  if (!found.token.scopes.includes("openid")) {
    return { error: oauthError("insufficient_scope"), claimsJson: "" };
  }
  const claims = await userInfoClaims(deps, found.token.user_id, found.token.scopes);
  return claims
    ? { claimsJson: JSON.stringify(claims) }
    : { error: oauthError("invalid_token"), claimsJson: "" };
}
