import {
  NoSuchObjectError,
  PresenceFilter,
  type Client,
  type Entry,
  type Filter,
  type SearchOptions,
} from "ldapts";
import type { Logger } from "../logger";
import type { LdapServer } from "./config";
import { connectAsService, connectionError, isResultCodeError } from "./connection";
import { normalizeDn } from "./dn";
import { allOf, equals, parseLdapFilter } from "./filter";
import { findGroupByCn, groupCnsOf, listGroupCns, type LdapGroup } from "./groups";
import { personAttributeNames, toPerson, type LdapPerson } from "./person";

/** `userAccountControl` has bit 2 set (1.2.840.113556.1.4.803 is AD's LDAP_MATCHING_RULE_BIT_AND). */
const AD_ACCOUNT_DISABLED = parseLdapFilter("(userAccountControl:1.2.840.113556.1.4.803:=2)")!;

/**
 * One session with one LDAP server, bound as its service account: what sign-in and sync ask the
 * directory, as GitLab's `Gitlab::Auth::Ldap::Adapter` asks it. Open it with `LdapDirectory.open`
 * (or `withDirectory`), close it when done; it is not shared between concurrent users.
 *
 * Searches follow GitLab: a search the server answers with an error code (no such base, bad filter)
 * is an empty result, logged; a broken or silent connection is retried once on a fresh connection
 * and then thrown as an LdapConnectionError.
 */
export class LdapDirectory {
  /** Searches sent, for benchmarks ("directory queries per sync"). */
  queries = 0;
  private readonly userFilter: Filter | undefined;

  private constructor(
    readonly server: LdapServer,
    private client: Client,
    private readonly log?: Logger,
  ) {
    this.userFilter = server.userFilter ? parseLdapFilter(server.userFilter) : undefined;
  }

  /** Connects and binds as the service account; throws LdapConnectionError. */
  static async open(server: LdapServer, log?: Logger): Promise<LdapDirectory> {
    return new LdapDirectory(server, await connectAsService(server), log);
  }

  /** Entries found; see the class comment for errors. */
  async search(base: string, options: SearchOptions): Promise<Entry[]> {
    for (let attempt = 1; ; attempt++) {
      this.queries++;
      try {
        return (await this.client.search(base, options)).searchEntries;
      } catch (e) {
        if (isResultCodeError(e)) {
          if (!(e instanceof NoSuchObjectError))
            this.log?.warn({ provider: this.server.provider, base, err: e.message }, "LDAP search error");
          return [];
        }
        if (attempt > 1) throw connectionError(this.server, e);
        await this.client.unbind().catch(() => undefined);
        this.client = await connectAsService(this.server);
      }
    }
  }

  /** A person by the `uid` attribute, `user_filter` applied; the value is taken literally. */
  async findPersonByUid(uid: string): Promise<LdapPerson | undefined> {
    if (!uid) return undefined;
    return this.findPerson(this.server.base, "sub", equals(this.server.uid, uid));
  }

  /** The person at a DN, if it still matches `user_filter` (how later sign-ins re-check a user). */
  async findPersonByDn(dn: string): Promise<LdapPerson | undefined> {
    if (!dn) return undefined;
    return this.findPerson(dn, "base");
  }

  /**
   * Whether the account at `dn` is disabled in Active Directory (GitLab's
   * `Person.disabled_via_active_directory?`): bit 2 (ACCOUNTDISABLE) of its `userAccountControl`,
   * tested by the server with AD's bitwise-AND matching rule. Meaningful only on a server with
   * `active_directory`; a directory without the attribute or the rule answers no entry: false.
   */
  async isDisabledInActiveDirectory(dn: string): Promise<boolean> {
    if (!dn) return false;
    const entries = await this.search(dn, {
      scope: "base",
      filter: AD_ACCOUNT_DISABLED,
      attributes: ["1.1"],
    });
    return entries.length > 0;
  }

  private async findPerson(base: string, scope: "sub" | "base", filter?: Filter) {
    const entries = await this.search(base, {
      scope,
      filter: allOf(filter, this.userFilter) ?? new PresenceFilter({ attribute: "objectClass" }),
      attributes: personAttributeNames(this.server),
    });
    for (const entry of entries) {
      const person = toPerson(this.server, entry);
      if (person) return person;
    }
    return undefined;
  }

  /**
   * Normalized DNs of the entries under `base` (default: the server's `base`) matching `filter` (a
   * filter link's text, or a Filter); paged, so thousands of entries are fine. Undefined for a
   * filter text that does not parse.
   */
  async searchDns(filter: string | Filter, base = this.server.base): Promise<string[] | undefined> {
    const parsed = typeof filter === "string" ? parseLdapFilter(filter) : filter;
    if (!parsed) return undefined;
    const entries = await this.search(base, {
      scope: "sub",
      filter: parsed,
      attributes: ["1.1"],
      paged: { pageSize: 500 },
    });
    return entries.map((e) => normalizeDn(e.dn));
  }

  /** The group with this cn under `group_base`, with its members (see groups.ts). */
  findGroupByCn(cn: string): Promise<LdapGroup | undefined> {
    return findGroupByCn(this, cn);
  }

  /** Up to `limit` group cns under `group_base` starting with `search` (GET /ldap/groups). */
  listGroupCns(search: string, limit = 20): Promise<string[]> {
    return listGroupCns(this, search, limit);
  }

  /** The cns of the groups under `group_base` that list this person (member, uniqueMember, memberUid). */
  groupCnsOf(person: LdapPerson): Promise<string[]> {
    return groupCnsOf(this, person);
  }

  async close(): Promise<void> {
    await this.client.unbind().catch(() => undefined);
  }
}

/** Opens a session, runs `work`, closes it. */
export async function withDirectory<T>(
  server: LdapServer,
  work: (directory: LdapDirectory) => Promise<T>,
  log?: Logger,
): Promise<T> {
  const directory = await LdapDirectory.open(server, log);
  try {
    return await work(directory);
  } finally {
    await directory.close();
  }
}
