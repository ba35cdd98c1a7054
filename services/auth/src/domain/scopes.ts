import { PERSONAL_ACCESS_TOKEN_SCOPES } from "@canopy/protos";

/** Scopes a personal access token may carry: the server's, minus OIDC ones, plus a few for PATs only. */
export const PAT_SCOPES: readonly string[] = PERSONAL_ACCESS_TOKEN_SCOPES;

/** Only administrators may hold these. */
export const ADMIN_SCOPES = new Set(["sudo", "admin_mode", "read_service_ping"]);

export const isPatScope = (s: string) => PAT_SCOPES.includes(s);
