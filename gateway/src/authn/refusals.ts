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

/**
 * Why the API refuses a user who is not active (Gitlab::Auth::UserAccessDeniedReason): pending
 * approval and deactivated have their own words; every other state is "blocked".
 */
function notActiveReason(user: auth.User | undefined, externalUrl: string): string {
  switch (user?.state) {
    case auth.UserState.USER_STATE_BLOCKED_PENDING_APPROVAL:
      return "Your account is pending approval from your administrator and hence blocked.";
    case auth.UserState.USER_STATE_DEACTIVATED:
      return (
        "Your account has been deactivated by your administrator. " +
        `Please log back in from a web browser to reactivate your account at ${externalUrl.replace(/\/+$/, "")}`
      );
    default:
      return "Your account has been blocked.";
  }
}

/** The answer to a refused token; `answer.user` is the owner when the refusal is their state. */
export function refusalError(answer: auth.AuthenticateResponse, externalUrl: string): HttpError {
  switch (answer.refusal) {
    case auth.Refusal.REFUSAL_EXPIRED:
      return invalidToken("Token is expired. You can either do re-authorization or token refresh.");
    case auth.Refusal.REFUSAL_REVOKED:
      return invalidToken("Token was revoked. You have to re-authorize from the user.");
    case auth.Refusal.REFUSAL_IMPERSONATION_DISABLED:
      return invalidToken("Token is an impersonation token but impersonation was disabled.");
    case auth.Refusal.REFUSAL_USER_BLOCKED:
      return forbiddenError(notActiveReason(answer.user, externalUrl));
    default:
      return unauthorizedError();
  }
}

/** 403 for a token whose scopes do not reach the endpoint; `registered` lists the endpoint's (http/scopes.ts). */
export const insufficientScopeError = (registered: string[]) =>
  new HttpError(403, {
    error: "insufficient_scope",
    error_description: "The request requires higher privileges than provided by the access token.",
    scope: registered.join(" "),
  });
