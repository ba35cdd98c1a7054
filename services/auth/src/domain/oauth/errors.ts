import type { oauth } from "@canopy/protos";

/** RFC 6749 error codes with the descriptions GitLab (Doorkeeper) uses. */
const DESCRIPTIONS = {
  invalid_request:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unauthorized_client: "The client is not authorized to perform this request using this method.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  invalid_redirect_uri: "The redirect URI included is not valid.",
  unsupported_response_type: "The authorization server does not support this response type.",
  unsupported_response_mode: "The authorization server does not support this response mode.",
  access_denied: "The resource owner or authorization server denied the request.",
  invalid_code_challenge_method: "The code_challenge_method must be one of plain, S256.",
  invalid_token: "The access token is invalid",
  insufficient_scope: "The request requires higher privileges than provided by the access token.",
  // OIDC Core §3.1.2.6, answers to prompt=none (doorkeeper-openid_connect's texts).
  login_required: "The authorization server requires end-user authentication.",
  consent_required: "The authorization server requires end-user consent.",
  server_error:
    "The authorization server encountered an unexpected condition which prevented it from fulfilling the request.",
} as const;

export type OAuthErrorCode = keyof typeof DESCRIPTIONS;

export const oauthError = (error: OAuthErrorCode, description?: string): oauth.OAuthError => ({
  error,
  description: description ?? DESCRIPTIONS[error],
});

export const missingParameter = (name: string) =>
  oauthError("invalid_request", `Missing required parameter: ${name}.`);

/** Thrown inside a grant handler to answer with an OAuth error; the dispatcher turns it into the reply. */
export class OAuthRefusal extends Error {
  override readonly name = "OAuthRefusal";
  constructor(readonly error: oauth.OAuthError) {
    super(error.error);
  }
}

export const refuse = (error: OAuthErrorCode, description?: string): never => {
  throw new OAuthRefusal(oauthError(error, description));
};
