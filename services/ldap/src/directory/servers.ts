/**
 * The configured LDAP servers as this service needs them: provider names (`ldap` + the server id,
 * GitLab's `ldapmain`), in configuration order (the first answers `GET /ldap/groups` and links whose
 * provider is empty), and the bases the sync searches under.
 *
 * Interim: a reader of `CANOPY_LDAP_SERVERS` for what the sync needs; the full configuration (its
 * validation, encryption, bind credentials) is the kit's `ldap/config.ts`, which replaces this once
 * merged.
 */
export interface LdapServer {
  /** `ldapmain` for the server id `main`. */
  provider: string;
  label: string;
  /** Where people are searched (filter links). */
  base: string;
  /** Where groups are searched (cn links); empty: cn links of this provider are skipped. */
  groupBase: string;
  /** The attribute holding a person's username (GitLab's `uid`, `sAMAccountName` on AD). */
  uid: string;
  activeDirectory: boolean;
  /** Everything else the server's configuration says, for the directory client. */
  raw: Record<string, unknown>;
}

export function readLdapServers(json: string): LdapServer[] {
  if (!json.trim()) return [];
  const parsed = JSON.parse(json) as Record<string, Record<string, unknown>>;
  return Object.entries(parsed).map(([id, s]) => ({
    provider: `ldap${id}`,
    label: String(s.label ?? "LDAP"),
    base: String(s.base ?? ""),
    groupBase: String(s.group_base ?? ""),
    uid: String(s.uid ?? "sAMAccountName"),
    activeDirectory: s.active_directory === undefined ? true : Boolean(s.active_directory),
    raw: s,
  }));
}
