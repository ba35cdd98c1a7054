/**
 * DNs as GitLab's `Person.normalize_dn` compares them: RDNs split on unescaped commas, spaces around
 * `=` and `,` dropped, attribute names lower-cased; the whole lower-cased for matching (`dnKey`),
 * as GitLab matches member DNs to identities case-insensitively. Interim beside the kit's LDAP DN
 * helpers (the directory client's), which replace it once merged.
 */
export function normalizeDn(dn: string): string | undefined {
  const parts = splitRdns(dn.trim());
  if (!parts) return undefined;
  const rdns: string[] = [];
  for (const part of parts) {
    const eq = part.indexOf("=");
    if (eq <= 0) return undefined;
    const attr = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (!attr || !/^[a-z0-9.-]+$/.test(attr)) return undefined;
    rdns.push(`${attr}=${value}`);
  }
  return rdns.join(",");
}

export const dnKey = (dn: string) => (normalizeDn(dn) ?? dn.trim()).toLowerCase();

function splitRdns(dn: string): string[] | undefined {
  if (!dn) return undefined;
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === "\\" && i + 1 < dn.length) {
      current += c + dn[i + 1];
      i++;
    } else if (c === "," || c === ";") {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.some((p) => !p.trim()) ? undefined : parts;
}

/** GitLab's "incomplete DN": at most two RDNs, the first `uid=` (e.g. `uid=alice`): a uid to resolve. */
export function incompleteDnUid(dn: string): string | undefined {
  const parts = splitRdns(dn.trim());
  if (!parts || parts.length > 2) return undefined;
  const m = /^\s*uid\s*=\s*(.+?)\s*$/i.exec(parts[0]!);
  return m?.[1];
}

/** Whether `dn` lies under `base` (both normalized, case-insensitively). */
export const isUnder = (dn: string, base: string) => {
  if (!base) return true;
  const d = dnKey(dn);
  const b = dnKey(base);
  return d === b || d.endsWith(`,${b}`);
};
