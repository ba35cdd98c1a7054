/** Scopes a personal access token may carry (GitLab's, minus OIDC and dynamic ones). */
export const PAT_SCOPES = [
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
  "ai_features",
  "self_rotate",
  "sudo",
  "admin_mode",
  "read_service_ping",
] as const;

/** Only administrators may hold these. */
export const ADMIN_SCOPES = new Set(["sudo", "admin_mode", "read_service_ping"]);

export const isPatScope = (s: string) => (PAT_SCOPES as readonly string[]).includes(s);
