import { createHash, timingSafeEqual } from "node:crypto";

/** RFC 7636: 43 to 128 characters of the unreserved alphabet. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CHALLENGE_METHODS = ["plain", "S256"] as const;

export const isValidVerifier = (verifier: string) => VERIFIER.test(verifier);

/** Whether `verifier` answers `challenge`; compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: string): boolean {
  const computed = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  const a = Buffer.from(computed);
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
