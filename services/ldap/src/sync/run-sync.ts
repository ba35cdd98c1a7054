import { planFeatures, recordEvent, withTransaction, type LdapServer } from "@canopy/kit";
import { LDAP_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { DirectoryUnavailable } from "../directory/directory";
import { managedMembers, usersOfDns } from "../store/identities";
import { linksOf, type LinkRow } from "../store/links";
import { finishSync, markFailed, recordFound, type SyncRow } from "../store/syncs";
import { DirectoryReader } from "./member-dns";

/** What one sync found in the directory, before the groups service applies it. */
export interface SyncOutcome {
  desired: Map<number, number>;
  managed: number[];
  unknownDns: number;
  /** Directory searches this sync sent. */
  queries: number;
  /** No active link of a configured provider: nothing to sync (LDAP members stay, as in GitLab). */
  nothingLinked: boolean;
}

/**
 * One claimed sync of one group (GitLab's Sync::Group, every provider of the group's links):
 *   1. each active link's member DNs (cn links under group_base, filter links under base), the
 *      highest access winning where a DN comes through several links;
 *   2. each DN to a Canopy user through the user's identity of that provider; DNs without one are
 *      skipped and counted (the user joins on a later sync, after their first sign-in);
 *   3. one command to the groups service, the only writer of memberships, with the desired members
 *      and the members the directory manages (GitLab: members holding the provider's identity).
 * The groups service adds, updates and removes LDAP members, keeps local members and the last
 * Owner, and answers LdapMembersApplied, which finishes the sync (events/groups.ts). A directory
 * that fails marks the sync failed with its reason, and no command is sent: nothing changes.
 */
export async function runSync(deps: Deps, claimed: SyncRow): Promise<SyncOutcome | undefined> {
  const { group_id: groupId, generation } = claimed;
  try {
    const outcome = await readDirectory(deps, groupId);
    await withTransaction(deps.pool, async (tx) => {
      // Still ours: a stale-sync sweep may have failed it meanwhile (then nothing is sent).
      const now = await tx.query(
        "SELECT 1 FROM group_syncs WHERE group_id = $1 AND generation = $2 AND status = 'started' FOR UPDATE",
        [groupId, generation],
      );
      if (!now.rowCount) return;
      if (outcome.nothingLinked) return finishSync(tx, groupId, generation, "");
      await recordFound(tx, groupId, generation, {
        unknownDns: outcome.unknownDns,
        desiredMembers: outcome.desired.size,
      });
      await recordEvent(tx, LDAP_EVENTS.desiredMembers, {
        groupId,
        generation,
        members: [...outcome.desired].map(([userId, accessLevel]) => ({ userId, accessLevel })),
        managedUserIds: outcome.managed,
        unknownDns: outcome.unknownDns,
      });
    });
    deps.log.info(
      {
        group_id: groupId,
        generation,
        desired: outcome.desired.size,
        unknown_dns: outcome.unknownDns,
        queries: outcome.queries,
      },
      "ldap sync read the directory",
    );
    return outcome;
  } catch (err) {
    const reason =
      err instanceof DirectoryUnavailable ? `${err.provider}: ${err.message}` : (err as Error).message;
    deps.log.warn({ err, group_id: groupId, generation }, "ldap sync failed");
    await markFailed(deps.pool, groupId, generation, reason);
    return undefined;
  }
}

/** Steps 1 and 2: the desired members of the group and who the directory manages. */
export async function readDirectory(deps: Deps, groupId: number): Promise<SyncOutcome> {
  const plan = planFeatures(deps.config.CANOPY_PLAN);
  const links = (await linksOf(deps.pool, groupId)).filter((l) =>
    l.cn !== null ? plan.ldapGroupSync : plan.ldapFilterLinks,
  );
  const serverOf = (l: LinkRow): LdapServer | undefined =>
    l.provider ? deps.servers.find((s) => s.provider === l.provider) : deps.servers[0];
  const directory = deps.openDirectory();
  const reader = new DirectoryReader(directory, deps.log);
  /** provider \0 dnKey -> highest access. */
  const access = new Map<string, number>();
  const providers = new Set<string>();
  try {
    for (const link of links) {
      const server = serverOf(link);
      // A link to a provider that is not configured is kept and never synced (GitLab).
      if (!server) continue;
      providers.add(server.provider);
      let dns: string[];
      if (link.cn !== null) {
        // A cn link is skipped when the provider has no group_base.
        if (!server.groupBase) continue;
        dns = await reader.memberDnsOfCn(server, link.cn);
      } else dns = await reader.memberDnsOfFilter(server, link.filter!);
      for (const dn of dns) {
        const key = `${server.provider}\u0000${dn}`;
        access.set(key, Math.max(access.get(key) ?? 0, link.group_access));
      }
    }
  } finally {
    await directory.close();
  }
  const pairs = [...access.keys()].map((k) => {
    const [provider, key] = k.split("\u0000") as [string, string];
    return { provider, key };
  });
  const users = await usersOfDns(deps.pool, pairs);
  const desired = new Map<number, number>();
  let unknownDns = 0;
  for (const [key, level] of access) {
    const userId = users.get(key);
    if (userId === undefined) unknownDns++;
    else desired.set(userId, Math.max(desired.get(userId) ?? 0, level));
  }
  const managed = await managedMembers(deps.pool, groupId, [...providers]);
  return { desired, managed, unknownDns, queries: directory.queries, nothingLinked: providers.size === 0 };
}
