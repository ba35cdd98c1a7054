import {
  LdapConnectionError,
  LdapDirectory,
  escapeLdapFilterValue,
  findGroupByCn,
  GROUP_ATTRIBUTES,
  groupCnsOf,
  groupOfEntry,
  listGroupCns,
  parseLdapFilter,
  type LdapGroup,
  type LdapServer,
  type Logger,
} from "@canopy/kit";
import { DirectoryUnavailable, type Directory } from "./directory";

/**
 * The Directory port on the kit's LDAP client: one session per server, opened on first use (bound
 * as the server's service account) and kept for the rest of the sync or request, so a sync of a
 * group linked to several cns of one server binds once. The kit's LdapConnectionError (unreachable,
 * too slow, bind refused, connection lost twice) becomes DirectoryUnavailable with its message.
 */
export function openLdapDirectory(log: Logger): Directory {
  const sessions = new Map<string, Promise<LdapDirectory>>();
  let closedQueries = 0;
  const open = new Set<LdapDirectory>();

  const session = (server: LdapServer) => {
    let found = sessions.get(server.provider);
    if (!found) {
      found = LdapDirectory.open(server, log).then((d) => (open.add(d), d));
      // A session that failed to open is not kept: a later call tries again.
      found.catch(() => sessions.delete(server.provider));
      sessions.set(server.provider, found);
    }
    return found;
  };

  /** Runs `work` on the server's session; connection failures become DirectoryUnavailable. */
  const on = async <T>(server: LdapServer, work: (d: LdapDirectory) => Promise<T>): Promise<T> => {
    try {
      return await work(await session(server));
    } catch (e) {
      if (e instanceof LdapConnectionError) throw new DirectoryUnavailable(server.provider, e.message);
      throw e;
    }
  };

  return {
    findGroup: (server, cn) => on(server, (d) => findGroupByCn(d, cn)),
    childGroups: (server, groupDn) => on(server, (d) => childGroups(d, groupDn)),
    searchPeople: (server, filter) => on(server, async (d) => (await d.searchDns(filter)) ?? []),
    findPersonDn: (server, uid) => on(server, async (d) => (await d.findPersonByUid(uid))?.dn),
    searchGroupCns: (server, term, limit) => on(server, (d) => listGroupCns(d, term, limit)),
    groupCnsOfPerson: (server, dn) =>
      on(server, async (d) => {
        const person = await d.findPersonByDn(dn);
        return person ? groupCnsOf(d, person) : [];
      }),
    get queries() {
      return closedQueries + [...open].reduce((n, d) => n + d.queries, 0);
    },
    close: async () => {
      for (const d of open) {
        closedQueries += d.queries;
        await d.close();
      }
      open.clear();
      sessions.clear();
    },
  };
}

/**
 * Active Directory's nested groups one level down (GitLab's `Adapter#nested_groups`): the entries
 * under group_base with `(&(objectClass=group)(memberOf=<dn>))`, each read as a group with its
 * `member` ranges followed as for a linked group (a nested group of more than 1,500 members answers
 * `member;range=0-1499`). Range following is untested: slapd cannot store or produce ranged
 * attributes (see kit/testing/slapd-ad.ts).
 */
async function childGroups(directory: LdapDirectory, groupDn: string): Promise<LdapGroup[]> {
  const { groupBase } = directory.server;
  if (!groupBase) return [];
  const entries = await directory.search(groupBase, {
    scope: "sub",
    // The DN comes from the directory; escaped all the same, as every value in a filter is.
    filter: parseLdapFilter(`(&(objectClass=group)(memberOf=${escapeLdapFilterValue(groupDn)}))`)!,
    attributes: GROUP_ATTRIBUTES,
    paged: { pageSize: 500 },
  });
  const groups: LdapGroup[] = [];
  for (const entry of entries) groups.push(await groupOfEntry(directory, entry, ["member", "uniqueMember"]));
  return groups;
}
