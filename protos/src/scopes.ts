/**
 * OAuth scopes the server knows (GitLab's, minus those for features Canopy does not have). Shared by
 * the auth service (validation), the gateway (discovery, the application form) and clients.
 */
export const OAUTH_SCOPES = [
  "api",
  "read_api",
  "read_user",
  "create_runner",
  "manage_runner",
  "k8s_proxy",
  "read_repository",
  "write_repository",
  "read_registry",
  "write_registry",
  "sudo",
  "admin_mode",
  "openid",
  "profile",
  "email",
] as const;

const OIDC_SCOPES: readonly string[] = ["openid", "profile", "email"];

/**
 * Scopes a personal access token may hold (GitLab's `all_available_scopes`): the server's, minus the
 * OpenID Connect ones, plus a few for personal access tokens only. Shared by the auth service
 * (validation) and the gateway (the endpoints any token may call, http/scopes.ts).
 */
export const PERSONAL_ACCESS_TOKEN_SCOPES: readonly string[] = [
  ...OAUTH_SCOPES.filter((s) => !OIDC_SCOPES.includes(s)),
  "ai_features",
  "self_rotate",
  "read_service_ping",
];
