import type { LdapGroup, LdapServer, Logger } from "@canopy/kit";
import type { Directory } from "../directory/directory";
import { dnKey, incompleteDnUid, isUnder, malformedDn } from "../domain/member-dn";

/**
 * How one sync reads the directory (GitLab's Sync::Proxy: each group cn and each uid is searched
 * once per sync, whatever number of links name it). Member DNs come back as dnKeys (normalized).
 */
export class DirectoryReader {
  private readonly groups = new Map<string, Promise<LdapGroup | undefined>>();
  private readonly uids = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly directory: Directory,
    private readonly log: Logger,
  ) {}

  /**
   * The member DNs of the group `cn` under the server's group_base (GitLab's LDAP::Group#member_dns):
   * the DNs the directory client read (`member`, else `uniqueMember`, else `memberOf`, plus
   * `submember`), an incomplete DN (`uid=alice`) resolved by a person search; a posixGroup's
   * `memberUid`s when there are no DNs at all, each mapped to a DN by a person search; on Active
   * Directory the members of nested groups too, and only DNs under `base`. No group: no members
   * (GitLab logs "Cannot find LDAP group with CN '<cn>'. Skipping").
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
    return unique([...dns, ...nested]).filter((dn) => !groupDns.has(dn) && isUnder(dn, server.base));
  }

  /** The DNs a filter link's filter finds under the server's base. */
  async memberDnsOfFilter(server: LdapServer, filter: string): Promise<string[]> {
    return unique(await this.directory.searchPeople(server, filter));
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

  private async memberDnsOf(server: LdapServer, group: LdapGroup): Promise<string[]> {
    const dns: string[] = [];
    for (const value of group.memberDns) {
      if (!value.trim()) continue;
      const uid = incompleteDnUid(value);
      if (uid !== undefined) {
        const dn = await this.personDn(server, uid);
        if (dn) dns.push(dn);
      } else if (malformedDn(value))
        this.log.error(
          { provider: server.provider, group: group.dn, dn: value },
          "malformed member DN skipped",
        );
      else dns.push(value);
    }
    if (!dns.length)
      for (const uid of group.memberUids) {
        const dn = await this.personDn(server, uid);
        if (dn) dns.push(dn);
      }
    return unique(dns);
  }

  /** Active Directory's nested groups, depth first, each group once (loop protection). */
  private async nestedMemberDns(server: LdapServer, group: LdapGroup, seen: Set<string>): Promise<string[]> {
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

/** Distinct dnKeys. */
const unique = (dns: string[]) => [...new Set(dns.map(dnKey))];
