/**
 * GitLab's token-scope rules for /api/v4, written once from GitLab's source, for the scope matrix
 * (api-scope-matrix.test.ts). It is the test's own model, not the gateway's declarations read back:
 * an endpoint added to the gateway is judged by the GitLab API class its path belongs to.
 *
 * - Every endpoint accepts `api`, and `read_api` for GET and HEAD (lib/api/api.rb:
 *   `allow_access_with_scope :api` and `:read_api, if: request.get? || request.head?`).
 * - An API class may register more (`allow_access_with_scope`): the Users and Version classes
 *   `read_user` for GET and HEAD (lib/api/users.rb, version.rb, events.rb: /events and
 *   /users/:id/events); PersonalAccessTokens::SelfInformation
 *   every scope a personal access token can hold, for any method, since any token may see and
 *   revoke itself (lib/api/personal_access_tokens/self_information.rb, Gitlab::Auth.all_available_scopes).
 * - A token that shares no scope with those is refused 403 `insufficient_scope`, and `scope` lists
 *   every scope registered for the endpoint whatever its condition: the class's first, then
 *   API::API's (api_guard.rb `scopes_registered_for_endpoint`, InsufficientScopeError). So a
 *   read_api token on a POST is told "api read_api", and on POST /users "read_user api read_api".
 * - Under Sudo (an administrator's token with the `sudo` scope acting as someone else), the
 *   endpoint's scopes are not checked at all (lib/api/helpers.rb `current_user`:
 *   `validate_and_save_access_token!(scopes: scopes_registered_for_endpoint) unless sudo?`).
 * - `admin_mode` reaches nothing by itself: it matters only where Admin Mode is on, which Canopy
 *   does not have (an administrator is one with any token).
 */
import { PERSONAL_ACCESS_TOKEN_SCOPES } from "@canopy/protos";
import type { Endpoint } from "../src/http/endpoint";

/** Every scope a personal access token may hold (GitLab's `all_available_scopes`). */
const ALL_AVAILABLE_SCOPES = [...PERSONAL_ACCESS_TOKEN_SCOPES];

interface ClassScopes {
  scopes: string[];
  /** The class's scopes reach GET and HEAD only. */
  readOnly: boolean;
}

/** Paths under /users that GitLab's Projects class serves, not its Users class (lib/api/projects.rb). */
const PROJECTS_UNDER_USERS = /^\/users\/:[a-z_]+\/(projects|starred_projects|contributed_projects)$/;

/** The scopes GitLab's API class for this path registers besides API::API's. */
export function classScopes(e: Endpoint): ClassScopes {
  if (e.path === "/personal_access_tokens/self") return { scopes: ALL_AVAILABLE_SCOPES, readOnly: false };
  if (/^\/users?(\/|$)/.test(e.path) && !PROJECTS_UNDER_USERS.test(e.path))
    return { scopes: ["read_user"], readOnly: true };
  if (e.path === "/version" || e.path === "/metadata" || e.path === "/events")
    return { scopes: ["read_user"], readOnly: true };
  return { scopes: [], readOnly: false };
}

/** Whether a token with `scopes` gets past the scope check of `e` with `method` (no Sudo). */
export function reaches(e: Endpoint, method: string, scopes: readonly string[]): boolean {
  const read = method === "GET" || method === "HEAD";
  const own = classScopes(e);
  const accepted = ["api", ...(read ? ["read_api"] : []), ...(read || !own.readOnly ? own.scopes : [])];
  return scopes.some((s) => accepted.includes(s));
}

/** GitLab's answer to a token whose scopes do not reach `e`. */
export const insufficientScope = (e: Endpoint) => ({
  error: "insufficient_scope",
  error_description: "The request requires higher privileges than provided by the access token.",
  scope: [...classScopes(e).scopes, "api", "read_api"].join(" "),
});
