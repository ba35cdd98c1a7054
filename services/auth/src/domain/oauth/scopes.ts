import { OAUTH_SCOPES } from "@canopy/protos";

export const SERVER_SCOPES = OAUTH_SCOPES;

export const DEFAULT_SCOPE = "api";

/** Space-separated scope text to a list; tabs, CR and LF make it malformed (Doorkeeper). */
export function parseScopes(text: string): string[] | undefined {
  if (/[\t\r\n]/.test(text)) return undefined;
  return [...new Set(text.split(" ").filter(Boolean))];
}

export const isServerScope = (s: string) => (SERVER_SCOPES as readonly string[]).includes(s);

/**
 * The scopes a request gets: the requested ones, or the default `api` when none were asked for and
 * the application has it. Undefined when the request may not have them (invalid_scope).
 */
export function effectiveScopes(requested: string, applicationScopes: string[]): string[] | undefined {
  // An application registered without scopes may ask for any the server knows.
  const allowed: readonly string[] = applicationScopes.length ? applicationScopes : SERVER_SCOPES;
  const scopes = parseScopes(requested);
  if (!scopes) return undefined;
  const wanted = scopes.length ? scopes : allowed.includes(DEFAULT_SCOPE) ? [DEFAULT_SCOPE] : [];
  if (!wanted.length || !wanted.every((s) => allowed.includes(s))) return undefined;
  return wanted;
}

/** Scopes that act with an administrator's powers: GitLab lets only administrators hold them. */
export const ADMIN_SCOPES: readonly string[] = ["sudo", "admin_mode"];

/**
 * Whether these scopes may be granted to a user with (or without) administrator rights. Checked at
 * authorization and again by every grant, since a user can lose the rights in between.
 */
export const grantableTo = (scopes: readonly string[], admin: boolean) =>
  admin || !scopes.some((s) => ADMIN_SCOPES.includes(s));
