import { auth } from "@canopy/protos";
import { forbiddenError, HttpError, unauthorizedError } from "../http/errors";

/** GitLab's API-guard answer for a refused token (lib/api/api_guard.rb). */
const invalidToken = (description: string) =>
  new HttpError(
    401,
    { error: "invalid_token", error_description: description },
    {
      "WWW-Authenticate": `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
    },
  );

export function refusalError(refusal: auth.Refusal): HttpError {
  switch (refusal) {
    case auth.Refusal.REFUSAL_EXPIRED:
      return invalidToken("Token is expired. You can either do re-authorization or token refresh.");
    case auth.Refusal.REFUSAL_REVOKED:
      return invalidToken("Token was revoked. You have to re-authorize from the user.");
    case auth.Refusal.REFUSAL_USER_BLOCKED:
      return forbiddenError("Your account has been blocked.");
    default:
      return unauthorizedError();
  }
}

/** 403 for a token whose scopes do not reach the endpoint; `accepted` lists those that would. */
export const insufficientScopeError = (accepted: string[]) =>
  new HttpError(403, {
    error: "insufficient_scope",
    error_description: "The request requires higher privileges than provided by the access token.",
    scope: accepted.join(" "),
  });
