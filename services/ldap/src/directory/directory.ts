import type { LdapServer } from "./servers";

/**
 * What the sync asks of a directory, one method per kind of LDAP search GitLab's sync makes
 * (ee/lib/ee/gitlab/auth/ldap/adapter.rb, group.rb). The implementation escapes every value it puts
 * in a filter, counts the searches it sends, and throws `DirectoryUnavailable` when the server
 * cannot be reached or fails (the sync then fails and changes nothing).
 */
export interface Directory {
  /**
   * The first entry under the server's `group_base` with `(cn=<cn>)`, with its member attributes
   * (`member`, `uniqueMember`, `memberUid`, `submember`, `memberOf`; AD ranges followed).
   */
  findGroup(server: LdapServer, cn: string): Promise<DirectoryGroup | undefined>;
  /** Active Directory: groups under `group_base` that are members of `groupDn` (nested groups). */
  childGroups(server: LdapServer, groupDn: string): Promise<DirectoryGroup[]>;
  /** DNs of the entries a filter finds under the server's `base` (filter links). */
  searchPeople(server: LdapServer, filter: string): Promise<string[]>;
  /** The DN of the person whose uid attribute is `uid` (posixGroup memberUid, incomplete DNs). */
  findPersonDn(server: LdapServer, uid: string): Promise<string | undefined>;
  /** Up to `limit` cns under `group_base` starting with `term` (`GET /ldap/:provider/groups`). */
  searchGroupCns(server: LdapServer, term: string, limit: number): Promise<string[]>;
  /** The cns of the groups under `group_base` that list `dn` (or `uid`) as a member (first sign-in). */
  groupCnsOf(server: LdapServer, dn: string, uid: string): Promise<string[]>;
  /** Searches sent so far (the benchmark's "directory queries per sync"). */
  readonly queries: number;
  close(): Promise<void>;
}

export interface DirectoryGroup {
  dn: string;
  cn: string;
  member: string[];
  uniqueMember: string[];
  memberUid: string[];
  submember: string[];
  memberOf: string[];
  /** Active Directory: the entry's objectClass includes `group`. */
  objectClasses: string[];
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
