import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, type events } from "@canopy/protos";
import { copiesChanged } from "./copies-changed";
import { removeMembershipsBelow } from "../commands/member-removals";
import { removeProjectsOf } from "../commands/remove-projects";
import type { Deps } from "../deps";
import {
  deleteGroupLink,
  deleteGroupMember,
  insertCreatorMember,
  upsertGroupLink,
  upsertGroupMember,
} from "../store/memberships";
import {
  applyNamespaceSnapshot,
  deleteNamespace,
  findNamespaceById,
  rebuildBelow,
  upsertNamespace,
} from "../store/namespaces";

/**
 * Keeps the copies of namespaces, group memberships and group shares in step with the groups
 * service's events: one durable consumer shared by every replica, each event applied once in the
 * transaction that records it (the kit's consumer), acked after commit. It reads the stream from its
 * start, so a service started after groups were made still sees them while the stream holds their
 * events (7 days); for older ones the groups service republishes a snapshot of every namespace,
 * membership and share once (its migration 0011), each applied here as an idempotent upsert.
 *
 * Cascades: a group removed takes its projects with it; marked for deletion hides them from lists
 * (the lists read the mark through traversal_ids); a transfer or rename rebuilds the copies below;
 * a member removed with `with_subresources` loses their project memberships below.
 */
export const groupsConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "projects-groups",
  subjects: ["canopy.groups.>"],
  handle: async (event, tx) => {
    if ((await applyGroupsEvent(deps, event, tx)) !== "unused") await copiesChanged(tx, event);
  },
});

export async function applyGroupsEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
): Promise<void | "unused"> /* "unused": no project answer changed */ {
  const created = payloadOf(event, GROUPS_EVENTS.groupCreated);
  if (created?.group) {
    await upsertNamespace(tx, created.group);
    // The creator is the group's Owner from its first moment (their MemberAdded follows): with both
    // in one transaction, a project created right after the group never meets a half copy.
    if (created.creatorId) await insertCreatorMember(tx, created.group.id, created.creatorId);
    // A new group holds no project and is shown in none: no project answer changed.
    return "unused";
  }
  const changed =
    payloadOf(event, GROUPS_EVENTS.groupUpdated)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupTransferred)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupMarkedForDeletion)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupRestored)?.group ??
    payloadOf(event, GROUPS_EVENTS.userNamespaceChanged)?.namespace;
  if (changed) {
    const before = await findNamespaceById(tx, changed.id);
    await upsertNamespace(tx, changed);
    // Only a move or a rename changes anything below; a visibility or mark change does not.
    const moved =
      !before ||
      before.path !== changed.path ||
      before.name !== changed.name ||
      before.traversal_ids.join() !== changed.traversalIds.join();
    if (moved) await rebuildBelow(tx, changed.id);
    return;
  }
  const removed =
    payloadOf(event, GROUPS_EVENTS.groupRemoved)?.group ??
    payloadOf(event, GROUPS_EVENTS.userNamespaceRemoved)?.namespace;
  if (removed) {
    await removeProjectsOf(deps, tx, removed.id);
    await deleteNamespace(tx, removed.id);
    return;
  }
  const republished = payloadOf(event, GROUPS_EVENTS.namespaceRepublished)?.namespace;
  if (republished) return applyNamespaceSnapshot(tx, republished);
  const member =
    payloadOf(event, GROUPS_EVENTS.memberAdded)?.member ??
    payloadOf(event, GROUPS_EVENTS.memberUpdated)?.member ??
    payloadOf(event, GROUPS_EVENTS.membershipRepublished)?.member;
  if (member) return (await upsertGroupMember(tx, member)) === "unchanged" ? "unused" : undefined;
  const removal = payloadOf(event, GROUPS_EVENTS.memberRemoved);
  if (removal?.member) {
    const gone = removal.member;
    await deleteGroupMember(tx, gone.groupId, gone.userId);
    if (removal.withSubresources) await removeMembershipsBelow(tx, gone.groupId, gone.userId, event.actor);
    return;
  }
  const shared =
    payloadOf(event, GROUPS_EVENTS.groupShared) ??
    payloadOf(event, GROUPS_EVENTS.groupShareRepublished)?.share;
  if (shared) return upsertGroupLink(tx, shared);
  const unshared = payloadOf(event, GROUPS_EVENTS.groupUnshared);
  if (unshared) return deleteGroupLink(tx, unshared.sharedGroupId, unshared.sharedWithGroupId);
  deps.log.debug({ type: event.type }, "groups event not used by projects");
  return "unused";
}
