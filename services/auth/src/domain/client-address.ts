import { isIP } from "node:net";

/** An IPv4 address as an IPv6 socket reports it ("::ffff:203.0.113.9"). */
const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The address a sign-in is recorded with (Devise's current_sign_in_ip), from what the gateway saw:
 * IPv4 as IPv4 even when it came through an IPv6 socket (GitLab shows "203.0.113.9"), and null for
 * anything that is not an address (a forged X-Forwarded-For reaches here unchecked, and the column
 * is PostgreSQL's inet: a bad value must not fail the sign-in).
 */
export function recordedAddress(seen: string): string | null {
  const address = seen.trim().replace(IPV4_MAPPED, "$1");
  return isIP(address) ? address : null;
}
