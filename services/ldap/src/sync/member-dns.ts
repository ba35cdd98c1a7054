import type { Logger } from "@canopy/kit";
import type { Directory, DirectoryGroup } from "../directory/directory";
import { dnKey, incompleteDnUid, isUnder, normalizeDn } from "../directory/dn";
import type { LdapServer } from "../directory/servers";

/**
 * How one sync reads the directory (GitLab's Sync::Proxy: each group cn and each uid is searched
 * once per sync, whatever number of links name it). Member DNs come back normalized.
 */
export class DirectoryReader {
  private readonly groups = new Map<string, Promise<DirectoryGroup | undefined>>();
  private readonly uids = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly directory: Directory,
    private readonly log: Logger,
  ) {}

  /**
   * The member DNs of the group `cn` under the server's group_base (GitLab's LDAP::Group#member_dns):
   * `member`, else `uniqueMember`, else `memberOf` (the first present), plus `submember`; a
   * posixGroup's `memberUid`s when there are no DNs at all, each mapped to a DN by a person search;
   * on Active Directory the members of nested groups too, and only DNs under `base`. No group: no
   * members (GitLab logs "Cannot find LDAP group with CN '<cn>'. Skipping").
   */
  async memberDnsOfCn(server: LdapServer, cn: string): Promise<string[]> {
    const group = await this.group(server, cn);
    if (!group) {
      this.log.warn({ provider: server.provider, cn }, `Cannot find LDAP group with CN '${cn}'. Skipping`);
      return [];
    }
    const dns = await this.memberDnsOf(server, group);
    if (!server.activeDirectory) return dns;
    const groupDns = new Set([dnKey(group.dn)]);
    const nested = await this.nestedMemberDns(server, group, groupDns);
    // Group DNs (AD lists nested groups among `member`) are not members; only DNs under `base` count.
    return unique([...dns, ...nested]).filter((dn) => !groupDns.has(dnKey(dn)) && isUnder(dn, server.base));
  }

  /** The DNs a filter link's filter finds under the server's base. */
  async memberDnsOfFilter(server: LdapServer, filter: string): Promise<string[]> {
    const found = await this.directory.searchPeople(server, filter);
    return unique(found.map((dn) => normalizeDn(dn)).filter((dn): dn is string => dn !== undefined));
  }

  private group(server: LdapServer, cn: string) {
    const key = `${server.provider}\u0000${cn.toLowerCase()}`;
    let found = this.groups.get(key);
    if (!found) this.groups.set(key, (found = this.directory.findGroup(server, cn)));
    return found;
  }

  private personDn(server: LdapServer, uid: string) {
    const key = `${server.provider}\u0000${uid}`;
    let found = this.uids.get(key);
    if (!found) this.uids.set(key, (found = this.directory.findPersonDn(server, uid)));
    return found;
  }

  private async memberDnsOf(server: LdapServer, group: DirectoryGroup): Promise<string[]> {
    const primary = [group.member, group.uniqueMember, group.memberOf].find((values) => values.length) ?? [];
    const raw = [...primary, ...group.submember];
    const dns: string[] = [];
    for (const value of raw) {
      if (!value.trim()) continue;
      const uid = incompleteDnUid(value);
      if (uid !== undefined) {
        const dn = await this.personDn(server, uid);
        if (dn) dns.push(dn);
        continue;
      }
      const dn = normalizeDn(value);
      if (dn === undefined) {
        this.log.error(
          { provider: server.provider, group: group.dn, dn: value },
          "malformed member DN skipped",
        );
        continue;
      }
      // A group DN is not a member (Active Directory lists nested groups among `member`).
      dns.push(dn);
    }
    if (!dns.length && group.memberUid.length) {
      for (const uid of group.memberUid) {
        const dn = await this.personDn(server, uid);
        if (dn) dns.push(dn);
      }
    }
    return unique(dns.map((dn) => normalizeDn(dn) ?? dn));
  }

  /** Active Directory's nested groups, depth first, each group once (loop protection). */
  private async nestedMemberDns(
    server: LdapServer,
    group: DirectoryGroup,
    seen: Set<string>,
  ): Promise<string[]> {
    const dns: string[] = [];
    for (const child of await this.directory.childGroups(server, group.dn)) {
      const key = dnKey(child.dn);
      if (seen.has(key)) continue;
      seen.add(key);
      dns.push(...(await this.memberDnsOf(server, child)));
      dns.push(...(await this.nestedMemberDns(server, child, seen)));
    }
    return dns;
  }
}

/** Distinct by dnKey, first spelling kept. */
function unique(dns: string[]): string[] {
  const seen = new Map<string, string>();
  for (const dn of dns) if (!seen.has(dnKey(dn))) seen.set(dnKey(dn), dn);
  return [...seen.values()];
}
