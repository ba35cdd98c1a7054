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
