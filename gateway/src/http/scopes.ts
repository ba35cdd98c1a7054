import { PERSONAL_ACCESS_TOKEN_SCOPES } from "@canopy/protos";

/**
 * Which token scopes reach an endpoint, as GitLab's API guard decides (lib/api/api_guard.rb,
 * lib/api/api.rb). Every endpoint accepts `api`, and `read_api` for GET and HEAD. The GitLab API
 * class an endpoint belongs to may register more (`allow_access_with_scope`): these are its
 * `ClassScopes`, declared on the endpoint (http/endpoint.ts).
 */
export interface ClassScopes {
  names: readonly string[];
  /** They reach GET and HEAD only (`if: ->(request) { request.get? || request.head? }`). */
  readOnly: boolean;
}

/** The Users and Version classes' `read_user`, for GET and HEAD (lib/api/users.rb, version.rb). */
export const READ_USER: ClassScopes = { names: ["read_user"], readOnly: true };

/**
 * Every scope a personal access token can hold, for any method: PersonalAccessTokens::SelfInformation
 * lets any token see and revoke itself (`allow_access_with_scope(Gitlab::Auth.all_available_scopes)`).
 */
export const EVERY_TOKEN_SCOPE: ClassScopes = { names: PERSONAL_ACCESS_TOKEN_SCOPES, readOnly: false };

const reads = (method: string) => method === "GET" || method === "HEAD";

/** The scopes that reach an endpoint with this method. */
export function acceptedScopes(own: ClassScopes | undefined, method: string): string[] {
  const read = reads(method);
  const ownReach = own && (read || !own.readOnly) ? own.names : [];
  return [...new Set(["api", ...(read ? ["read_api"] : []), ...ownReach])];
}

/**
 * The scopes a refused token is told of: every one registered for the endpoint, whatever its method,
 * the class's first and then API::API's (`scopes_registered_for_endpoint`, InsufficientScopeError).
 * So a read_api token on a POST is told "api read_api", and on POST /users "read_user api read_api".
 */
export const registeredScopes = (own: ClassScopes | undefined): string[] => [
  ...(own?.names ?? []),
  "api",
  "read_api",
];
