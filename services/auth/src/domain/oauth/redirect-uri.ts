/** Schemes GitLab forbids for redirect URIs (forbid_redirect_uri). */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:"]);
export const OOB_URI = "urn:ietf:wg:oauth:2.0:oob";

export const splitRedirectUris = (text: string) =>
  text
    .split(/\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** What a relative reference (RFC 3986) may contain; anything else cannot be a URI at all. */
const RELATIVE_REFERENCE = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]+$/;

/** Validation messages as GitLab's Doorkeeper gives them, keyed by attribute. */
export function redirectUriErrors(text: string): string[] {
  const uris = splitRedirectUris(text);
  if (!uris.length) return ["can't be blank"];
  for (const uri of uris) {
    if (uri === OOB_URI) continue;
    const scheme = SCHEME.exec(uri)?.[0];
    if (!scheme) return [RELATIVE_REFERENCE.test(uri) ? "must be an absolute URI." : "must be a valid URI."];
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return ["must be a valid URI."];
    }
    if (FORBIDDEN_SCHEMES.has(url.protocol)) return ["is forbidden by the server."];
    if (url.hash) return ["cannot contain a fragment."];
    // Doorkeeper's unspecified_scheme: an opaque URI (`localhost:3000`, `myapp:cb`) has no real scheme.
    if (!uri.startsWith("/", scheme.length) || url.protocol === "localhost:")
      return ["must specify a scheme."];
    if (!url.protocol || uri.length > 2000) return ["must be a valid URI."];
  }
  return [];
}

/** Exact match against one of the registered URIs: no prefix, no normalisation surprises. */
export const isRegisteredRedirect = (registered: string, requested: string) =>
  splitRedirectUris(registered).some((uri) => uri === requested || sameLoopbackApart(uri, requested));

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]"]);

/**
 * RFC 8252 §7.3: a native app listens on a loopback IP with a port chosen at run time, so for a
 * registered http://127.0.0.1 or http://[::1] URI any port matches; everything else must be equal.
 */
function sameLoopbackApart(registered: string, requested: string): boolean {
  try {
    const a = new URL(registered);
    const b = new URL(requested);
    if (a.protocol !== "http:" || !LOOPBACK_HOSTS.has(a.hostname)) return false;
    a.port = "";
    b.port = "";
    return a.toString() === b.toString();
  } catch {
    return false;
  }
}

/** Appends parameters to a URI's query, or to its fragment (implicit grant), keeping what it has. */
export function withParams(
  uri: string,
  params: Record<string, string | undefined>,
  inFragment = false,
): string {
  const url = new URL(uri);
  const target = new URLSearchParams(inFragment ? url.hash.slice(1) : url.search);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") target.set(k, v);
  if (inFragment) url.hash = target.toString();
  else url.search = target.toString();
  return url.toString();
}
