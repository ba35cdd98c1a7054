/**
 * The `outbound_local_requests_whitelist` application setting, read as GitLab reads it
 * (gems/gitlab-http url_allowlist.rb, ip_allowlist_entry.rb, domain_allowlist_entry.rb). Each
 * entry is an IP address, a CIDR range or a domain, optionally followed by `:port` (`[::1]:80`
 * for IPv6). Whatever does not parse as an address or a range is a domain. An entry without a
 * port matches every port.
 */
import ipaddr from "ipaddr.js";
import { normalizeAddress, type IpAddress } from "./address-rules";

interface IpEntry {
  range: IpAddress;
  bits: number;
  port: number | null;
}

interface DomainEntry {
  domain: string;
  port: number | null;
}

/** The setting parsed once per check: the address entries and the domain entries. */
export interface OutboundAllowlist {
  ips: IpEntry[];
  domains: DomainEntry[];
}

function splitPort(entry: string): { address: string; port: number | null } {
  const bracketed = /^\[(.*)\]:(\d+)$/.exec(entry);
  if (bracketed) return { address: bracketed[1]!, port: Number(bracketed[2]) };
  const plain = /^([^:]+):(\d+)$/.exec(entry);
  if (plain) return { address: plain[1]!, port: Number(plain[2]) };
  return { address: entry, port: null };
}

function parseIpEntry(address: string, port: number | null): IpEntry | null {
  if (ipaddr.isValidCIDR(address)) {
    const [range, bits] = ipaddr.parseCIDR(address);
    return { range, bits, port };
  }
  const single = normalizeAddress(address);
  if (!single) return null;
  return { range: single, bits: single.kind() === "ipv4" ? 32 : 128, port };
}

export function parseAllowlist(entries: readonly string[]): OutboundAllowlist {
  const list: OutboundAllowlist = { ips: [], domains: [] };
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const { address, port } = splitPort(entry);
    const ip = parseIpEntry(address, port);
    if (ip) list.ips.push(ip);
    else list.domains.push({ domain: address.toLowerCase(), port });
  }
  return list;
}

const portMatches = (entryPort: number | null, port: number) => entryPort === null || entryPort === port;

/** A host name listed as a domain (exact name, case-insensitive; no wildcards, as in GitLab). */
export function isDomainAllowed(list: OutboundAllowlist, hostname: string, port: number): boolean {
  const host = hostname.toLowerCase();
  return list.domains.some((entry) => entry.domain === host && portMatches(entry.port, port));
}

// GitLab compares an IPv4 address with an IPv6 entry (and the reverse) through the IPv4-mapped form.
function rangeIncludes(entry: IpEntry, address: IpAddress): boolean {
  if (entry.range.kind() === address.kind()) return address.match(entry.range, entry.bits);
  if (entry.range.kind() === "ipv6" && address.kind() === "ipv4") {
    return (address as ipaddr.IPv4).toIPv4MappedAddress().match(entry.range, entry.bits);
  }
  const mappedRange = (entry.range as ipaddr.IPv4).toIPv4MappedAddress();
  return address.match(mappedRange, entry.bits + 96);
}

/** An address inside a listed address or range. */
export function isAddressAllowed(list: OutboundAllowlist, address: IpAddress, port: number): boolean {
  return list.ips.some((entry) => rangeIncludes(entry, address) && portMatches(entry.port, port));
}
