import {
  ANONYMOUS,
  payloadOf,
  recordEvent,
  recordEvents,
  type ConsumerDefinition,
  type PoolClient,
} from "@canopy/kit";
import { GROUPS_EVENTS, LDAP_EVENTS, type events, type ldapEvents } from "@canopy/protos";
import { recordMemberRemoved, membershipOf } from "../commands/members-common";
import type { Deps } from "../deps";
import { planLdapMembers } from "../domain/ldap-members";
import {
  activeOwners,
  claimGeneration,
  currentMembers,
  inheritedLevels,
  insertLdapMembers,
  knownUsers,
  setLdapMember,
} from "../store/ldap-members";
import { deleteMembership } from "../store/members";
import { lockTreesOf } from "../store/namespaces";

/**
 * The ldap service's "desired LDAP members of group G" command (subject canopy.ldap.sync.desired_members),
 * delivered through JetStream to one durable consumer shared by the replicas: this service stays the
 * only writer of memberships. Applied in the consumer's transaction under the group's tree lock, so
 * it is atomic and exactly once; a generation at or below the last applied one changes nothing
 * (idempotent, and an older sync never overwrites a newer one). Every change is the usual member
 * event (hooks and copies see them), and LdapMembersApplied answers the ldap service.
 */
export const ldapMembersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "groups-ldap-members",
  subjects: ["canopy.ldap.sync.>"],
  handle: (event, tx) => applyLdapCommand(deps, event, tx),
});

export async function applyLdapCommand(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const command = payloadOf(event, LDAP_EVENTS.desiredMembers);
  if (!command) return;
  const answer = await applyDesiredMembers(deps, tx, command);
  await recordEvent(tx, GROUPS_EVENTS.ldapMembersApplied, answer);
}

export async function applyDesiredMembers(deps: Deps, tx: PoolClient, c: ldapEvents.DesiredLdapMembers) {
  const answer = {
    groupId: c.groupId,
    generation: c.generation,
    added: 0,
    updated: 0,
    removed: 0,
    keptLastOwner: 0,
    unknownUsers: 0,
    error: "",
    stale: false,
  };
  const [group] = await lockTreesOf(tx, [c.groupId]);
  if (!group || group.kind !== "group") return { ...answer, error: "The group no longer exists" };
  if (!(await claimGeneration(tx, group.id, c.generation))) return { ...answer, stale: true };
  const known = await knownUsers(
    tx,
    c.members.map((m) => m.userId),
  );
  const desired = new Map<number, number>();
  for (const m of c.members)
    if (known.has(m.userId)) desired.set(m.userId, m.accessLevel);
    else answer.unknownUsers++;
  const current = await currentMembers(tx, group.id);
  const ancestors = group.traversal_ids.slice(0, -1);
  const changes = planLdapMembers({
    current,
    desired,
    managed: new Set(c.managedUserIds),
    inherited: await inheritedLevels(tx, ancestors, [...desired.keys()]),
    owners: await activeOwners(tx, group.traversal_ids),
    topLevel: group.parent_id === null,
  });
  const rows = new Map(current.map((m) => [m.id, m.row]));
  // Additions go in one statement with their events (a first sync adds thousands), after the other
  // changes as before: the plan lists them last.
  const adds: { userId: number; accessLevel: number }[] = [];
  for (const change of changes) {
    switch (change.kind) {
      case "add":
        adds.push(change);
        break;
      case "flag":
        await setLdapMember(tx, change.member.id);
        break;
      case "update": {
        const before = rows.get(change.member.id)!;
        const row = await setLdapMember(tx, change.member.id, change.accessLevel);
        if (row) {
          answer.updated++;
          await recordEvent(tx, GROUPS_EVENTS.memberUpdated, {
            member: membershipOf(row),
            oldAccessLevel: before.access_level,
            oldExpiresAt: before.expires_at ?? "",
          });
        }
        break;
      }
      case "remove": {
        const row = await deleteMembership(tx, change.member.id);
        if (row) {
          answer.removed++;
          await recordMemberRemoved(tx, row, SYNC_ACTOR);
        }
        break;
      }
      case "keep-last-owner":
        answer.keptLastOwner++;
        // Still flagged: the directory manages the membership; it stays only as the last Owner.
        await setLdapMember(tx, change.member.id);
        deps.log.warn(
          { group_id: group.id, user_id: change.member.userId },
          "ldap sync kept the group's last owner",
        );
        break;
    }
  }
  const added = await insertLdapMembers(tx, group.id, adds);
  answer.added = added.length;
  await recordEvents(
    tx,
    GROUPS_EVENTS.memberAdded,
    added.map((row) => ({ member: membershipOf(row) })),
  );
  return answer;
}

/** Who LDAP sync changes are recorded as: nobody (GitLab's sync runs without a current user). */
const SYNC_ACTOR = ANONYMOUS;
