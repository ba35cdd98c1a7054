import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteMember, deleteShare, insertCreatorMember, upsertMember, upsertShare } from "../store/copies";
import { deleteGroup, findGroupById, rebuildBelow, upsertGroup } from "../store/groups";

/**
 * Keeps the copies of groups, memberships and shares in step with the groups service's events (a
 * durable consumer shared by every replica, each event applied once in its transaction, reading the
 * stream from its start; the groups service's one-time republications fill what the stream no
 * longer holds), and finishes syncs when the groups service answers their command.
 */
export const groupsConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "ldap-groups",
  subjects: ["canopy.groups.>"],
  handle: (event, tx) => applyGroupsEvent(deps, event, tx),
});

export async function applyGroupsEvent(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const created = payloadOf(event, GROUPS_EVENTS.groupCreated);
  if (created?.group) {
    await upsertGroup(tx, created.group);
    if (created.group.kind === "group" && created.creatorId)
      await insertCreatorMember(tx, created.group.id, created.creatorId);
    return;
  }
  const changed =
    payloadOf(event, GROUPS_EVENTS.groupUpdated)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupTransferred)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupMarkedForDeletion)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupRestored)?.group ??
    payloadOf(event, GROUPS_EVENTS.namespaceRepublished)?.namespace;
  if (changed) {
    if (changed.kind !== "group") return;
    const before = await findGroupById(tx, changed.id);
    await upsertGroup(tx, changed);
    if (
      before &&
      (before.full_path !== changed.fullPath || before.traversal_ids.join() !== changed.traversalIds.join())
    )
      await rebuildBelow(tx, changed.id);
    return;
  }
  const removed = payloadOf(event, GROUPS_EVENTS.groupRemoved)?.group;
  if (removed) return deleteGroup(tx, removed.id);
  const member =
    payloadOf(event, GROUPS_EVENTS.memberAdded)?.member ??
    payloadOf(event, GROUPS_EVENTS.memberUpdated)?.member ??
    payloadOf(event, GROUPS_EVENTS.membershipRepublished)?.member;
  if (member) return upsertMember(tx, member);
  const gone = payloadOf(event, GROUPS_EVENTS.memberRemoved)?.member;
  if (gone) return deleteMember(tx, gone.groupId, gone.userId);
  const shared =
    payloadOf(event, GROUPS_EVENTS.groupShared) ??
    payloadOf(event, GROUPS_EVENTS.groupShareRepublished)?.share;
  if (shared) return upsertShare(tx, shared);
  const unshared = payloadOf(event, GROUPS_EVENTS.groupUnshared);
  if (unshared) return deleteShare(tx, unshared.sharedGroupId, unshared.sharedWithGroupId);
}
