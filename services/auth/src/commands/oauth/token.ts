import type { oauth } from "@canopy/protos";
import { missingParameter, OAuthRefusal, oauthError } from "../../domain/oauth/errors";
import type { Deps } from "../../deps";
import { authorizationCodeGrant } from "./grants/authorization-code";
import { clientCredentialsGrant } from "./grants/client-credentials";
import { passwordGrant } from "./grants/password";
import { refreshTokenGrant } from "./grants/refresh-token";

type GrantHandler = (deps: Deps, req: oauth.TokenRequest) => Promise<oauth.TokenResponse>;

/** One handler per grant type. */
const GRANTS = new Map<string, GrantHandler>([
  ["authorization_code", authorizationCodeGrant],
  ["refresh_token", refreshTokenGrant],
  ["password", passwordGrant],
  ["client_credentials", clientCredentialsGrant],
]);

/** POST /oauth/token: dispatches on grant_type; refusals come back in-band as OAuthError. */
export async function token(deps: Deps, req: oauth.TokenRequest): Promise<oauth.TokenResponse> {
  try {
    if (!req.grantType) throw new OAuthRefusal(missingParameter("grant_type"));
    const handler = GRANTS.get(req.grantType);
    if (!handler) throw new OAuthRefusal(oauthError("unsupported_grant_type"));
    return await handler(deps, req);
  } catch (err) {
    if (err instanceof OAuthRefusal) return emptyReply(err.error);
    throw err;
  }
}

export const emptyReply = (error: oauth.OAuthError): oauth.TokenResponse => ({
  error,
  accessToken: "",
  tokenType: "",
  expiresIn: 0,
  refreshToken: "",
  scope: "",
  createdAt: 0,
  idToken: "",
});
