import { OAUTH_SCOPES } from "@canopy/protos";

const OIDC_SCOPES = new Set(["openid", "profile", "email"]);

/** Scopes a personal access token may carry: the server's, minus OIDC ones, plus a few for PATs only. */
export const PAT_SCOPES: readonly string[] = [
  ...OAUTH_SCOPES.filter((s) => !OIDC_SCOPES.has(s)),
  "ai_features",
  "self_rotate",
  "read_service_ping",
];

/** Only administrators may hold these. */
export const ADMIN_SCOPES = new Set(["sudo", "admin_mode", "read_service_ping"]);

export const isPatScope = (s: string) => PAT_SCOPES.includes(s);
