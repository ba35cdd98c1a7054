import { normalizeDn, parseDn } from "@canopy/kit";

/**
 * How the sync reads member values (GitLab's Sync::Proxy and LDAP::Group), on the kit's DN parser:
 * DNs are compared normalized (the kit's `normalizeDn`, lower-cased as GitLab matches identities).
 */

/** A member value that is not a DN at all (GitLab logs it and skips it); undefined when it parses. */
export function malformedDn(value: string): boolean {
  try {
    return parseDn(value).length === 0;
  } catch {
    return true;
  }
}

/**
 * GitLab's "incomplete DN": at most two RDNs, the first `uid=` (`uid=alice`, `uid=alice,ou=x`):
 * the member is named by uid and resolved through a person search. Undefined for a full DN.
 */
export function incompleteDnUid(value: string): string | undefined {
  let pairs: [string, string][];
  try {
    pairs = parseDn(value);
  } catch {
    return undefined;
  }
  if (!pairs.length || pairs.length > 2 || pairs[0]![0].toLowerCase() !== "uid") return undefined;
  return pairs[0]![1];
}

/** Whether `dn` lies under `base`, both compared normalized. An empty base holds everything. */
export function isUnder(dn: string, base: string): boolean {
  if (!base) return true;
  const d = normalizeDn(dn);
  const b = normalizeDn(base);
  return d === b || d.endsWith(`,${b}`);
}

/** The key a DN is matched by: normalized and lower-cased (also when it does not parse). */
export const dnKey = (dn: string) => normalizeDn(dn.trim()).toLowerCase();
