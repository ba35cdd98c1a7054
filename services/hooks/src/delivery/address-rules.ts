/**
 * Which resolved addresses a webhook may not reach while local requests are not allowed, with
 * GitLab's reason for each (gems/gitlab-http url_blocker.rb, `validate_local_request`). The rules
 * are checked in GitLab's order and the first that matches *any* resolved address wins, so a name
 * resolving to both a public and a private address is blocked.
 *
 * Addresses arrive already normalised by `normalizeAddress`: an IPv4-mapped IPv6 address
 * (::ffff:127.0.0.1) is its IPv4 address, as GitLab converts them before checking.
 */
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

const cidrs = (...ranges: string[]) => ranges.map((range) => ipaddr.parseCIDR(range));

const LOOPBACK = cidrs("127.0.0.0/8", "::1/128");
// Ruby's ipv4_private?, ipv6_sitelocal? and ipv6_unique_local?.
const LOCAL_NETWORK = cidrs("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fec0::/10", "fc00::/7");
const LINK_LOCAL = cidrs("169.254.0.0/16", "fe80::/10");
const SHARED_ADDRESS_SPACE = cidrs("100.64.0.0/10");

export const REASONS = {
  localhost: "Requests to localhost are not allowed",
  loopback: "Requests to loopback addresses are not allowed",
  localNetwork: "Requests to the local network are not allowed",
  linkLocal: "Requests to the link local network are not allowed",
  sharedAddress: "Requests to the shared address space are not allowed",
  limitedBroadcast: "Requests to the limited broadcast address are not allowed",
} as const;

/** Parses an address string and unwraps IPv4-mapped IPv6; null when it is not an IP address. */
export function normalizeAddress(text: string): IpAddress | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  // ipaddr.isValid accepts IPv4 shorthands ("127.1") that only a URL parser should expand.
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return null;
  return ipaddr.process(bare);
}

const inAny = (address: IpAddress, ranges: [IpAddress, number][]) =>
  ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));

/**
 * "Localhost" for GitLab is the unspecified addresses plus every address of the machine's own
 * interfaces (Ruby's Socket.ip_address_list), so 127.0.0.1 reads "localhost" and 127.0.0.2
 * "loopback".
 */
export function machineAddresses(): string[] {
  const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
  return ["0.0.0.0", "::", ...own];
}

/**
 * GitLab's reason for refusing these addresses, or null when none of them is local.
 * `localAddresses` is the machine's own addresses (`machineAddresses()` unless a test says).
 */
export function localAddressReason(addresses: IpAddress[], localAddresses: string[]): string | null {
  const own = new Set(localAddresses.map((a) => normalizeAddress(a)?.toString()).filter(Boolean));
  if (addresses.some((a) => own.has(a.toString()))) return REASONS.localhost;
  if (addresses.some((a) => inAny(a, LOOPBACK))) return REASONS.loopback;
  if (addresses.some((a) => inAny(a, LOCAL_NETWORK))) return REASONS.localNetwork;
  if (addresses.some((a) => inAny(a, LINK_LOCAL))) return REASONS.linkLocal;
  if (addresses.some((a) => inAny(a, SHARED_ADDRESS_SPACE))) return REASONS.sharedAddress;
  if (addresses.some((a) => a.toString() === "255.255.255.255")) return REASONS.limitedBroadcast;
  return null;
}
