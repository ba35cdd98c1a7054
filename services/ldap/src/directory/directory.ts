import type { LdapGroup, LdapServer } from "@canopy/kit";

/**
 * What the sync and the directory search ask of the configured directories, one method per kind
 * of LDAP search GitLab's sync makes (ee/lib/ee/gitlab/auth/ldap/adapter.rb, group.rb). Every value
 * put in a filter is escaped (the kit's client builds filter objects); the searches sent are
 * counted; a server that cannot be reached or fails throws `DirectoryUnavailable` (a sync then fails
 * and changes nothing). One `Directory` serves one sync or one request, then is closed.
 */
export interface Directory {
  /**
   * The first entry under the server's `group_base` with `(cn=<cn>)`: its member DNs (`member`,
   * else `uniqueMember`, else `memberOf`, plus `submember`; AD ranges followed; normalized) and a
   * posixGroup's `memberUid`s.
   */
  findGroup(server: LdapServer, cn: string): Promise<LdapGroup | undefined>;
  /** Active Directory: the groups under `group_base` that are members of `groupDn` (nested groups). */
  childGroups(server: LdapServer, groupDn: string): Promise<LdapGroup[]>;
  /** Normalized DNs of the entries a filter link's filter finds under the server's `base`. */
  searchPeople(server: LdapServer, filter: string): Promise<string[]>;
  /** The normalized DN of the person whose uid attribute is `uid` (posixGroup memberUid, incomplete DNs). */
  findPersonDn(server: LdapServer, uid: string): Promise<string | undefined>;
  /** Up to `limit` cns under `group_base` starting with `term` (`GET /ldap/:provider/groups`). */
  searchGroupCns(server: LdapServer, term: string, limit: number): Promise<string[]>;
  /** The cns of the groups under `group_base` that list the person at `dn` (first sign-in). */
  groupCnsOfPerson(server: LdapServer, dn: string): Promise<string[]>;
  /** Searches sent so far, every server together (the benchmark's "directory queries per sync"). */
  readonly queries: number;
  close(): Promise<void>;
}

/** The directory could not answer: the sync fails with this reason and changes nothing. */
export class DirectoryUnavailable extends Error {
  override readonly name = "DirectoryUnavailable";
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(reason);
  }
}
