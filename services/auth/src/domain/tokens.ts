import { createHmac, randomBytes } from "node:crypto";

export const PAT_PREFIX = "glpat-";

/** A new personal access token: the prefix and 32 base64url characters (192 bits). */
export const generatePersonalAccessToken = () => PAT_PREFIX + randomBytes(24).toString("base64url");

/**
 * Tokens are stored only as a keyed hash. A stolen table therefore cannot be replayed, and the key
 * lives apart from the digests' readers (instance_secrets or CANOPY_SECRET_KEY).
 */
export const tokenDigest = (key: Buffer, token: string) =>
  createHmac("sha256", key).update(token).digest("base64");

/**
 * The digests a stored token may carry: under the current key first and, during a key rotation,
 * under the previous one. Lookups match any; what is found under the previous key is moved on use.
 */
export const tokenDigests = (keys: { tokenKey: Buffer; previousTokenKey: Buffer | null }, token: string) =>
  keys.previousTokenKey
    ? [tokenDigest(keys.tokenKey, token), tokenDigest(keys.previousTokenKey, token)]
    : [tokenDigest(keys.tokenKey, token)];

/** GitLab's rule: a token whose expiry date is today or earlier has expired (dates are UTC). */
export function isExpired(expiresAt: string | null, now = new Date()): boolean {
  return expiresAt !== null && expiresAt <= now.toISOString().slice(0, 10);
}

/** The instant an expiry date takes effect (start of that day, UTC). */
export const expiryInstant = (expiresAt: string) => new Date(`${expiresAt}T00:00:00.000Z`);
