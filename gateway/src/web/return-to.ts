const BASE = "http://canopy.invalid";

const hasControlCharacter = (s: string) =>
  [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const singleSlashPath = (s: string) => s.startsWith("/") && s[1] !== "/" && !s.includes("\\");

/**
 * Only a path on this site may be a post-sign-in destination: it must start with exactly one "/"
 * ("//host" and "/\host" are read by browsers as another host), hold no control characters
 * (browsers drop tabs and newlines, turning "/\t/host" into "//host") and resolve to our origin.
 * The answer is the normalised, percent-encoded form, checked again: "/.//host" normalises to "//host".
 */
export function safeReturnPath(candidate: unknown): string | undefined {
  if (typeof candidate !== "string" || candidate.length > 4096) return undefined;
  if (!singleSlashPath(candidate) || hasControlCharacter(candidate)) return undefined;
  let url: URL;
  try {
    url = new URL(candidate, BASE);
  } catch {
    return undefined;
  }
  const path = url.pathname + url.search + url.hash;
  return url.origin === BASE && singleSlashPath(path) ? path : undefined;
}
