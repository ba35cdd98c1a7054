import {
  payloadOf,
  type BatchScope,
  type ConsumerDefinition,
  type EventMeta,
  type PoolClient,
} from "@canopy/kit";
import { GROUPS_EVENTS, PROJECTS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  buildMemberPayload,
  buildSubgroupPayload,
  HOOK_TRIGGERS,
  type HookTrigger,
  type MemberEventName,
  type SubgroupEventName,
} from "../payloads";
import {
  deleteMember,
  findMember,
  findNamespace,
  rebuildBelow,
  removeNamespace,
  upsertMember,
  upsertNamespace,
  type MemberRow,
  type NamespaceRow,
} from "../store/copies";
import { forgetKnown, keepNamespace, namespaceIn, queueDeliveries, userIn } from "./batch-work";
import { deleteGroupHooks } from "../store/hooks";
import { dateOf, GroupNotYetKnown, type Fired } from "./fired";
import { HANDLED_TYPES } from "./handled-types";
import { applyProjectOrUser } from "./project-user-events";

export { GroupNotYetKnown } from "./fired";
import { hookGroupOf, hookMembershipOf, hookUserOf, unknownUser } from "./payload-inputs";

/**
 * Turns the other contexts' events into deliveries (§2.4 of the hooks reference), and keeps the
 * copies the payloads need. One durable consumer over the whole stream (nats-server 2.9 takes one
 * filter subject per consumer): groups, projects and users events are applied in stream order, so a
 * member event always finds the user it names. Each event is handled once, in the transaction that
 * records it as processed (the kit's consumer), and its deliveries (one row per hook) are written in
 * that same transaction: an event is never lost between the stream and the deliveries, never doubled.
 *
 * Fan-out: an event of group G reaches the hooks of G and of every ancestor (G's traversal_ids)
 * whose flag is on and that are executable; subgroup events reach the *parent's* hooks and up,
 * never the subgroup's own. Without the plan's group webhooks no hook fires (GitLab's licensed
 * feature `group_webhooks`), though the API still manages them.
 */
export const hookEventsConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "hooks-events",
  subjects: ["canopy.>"],
  wants: (type) => HANDLED_TYPES.has(type),
  handle: (event, tx, meta) => applyEvent(deps, event, tx, meta),
  // Events held by a replica that died come back after the ack wait, behind later ones: an event
  // naming a group the copies do not know yet fails (GroupNotYetKnown) and is offered again until
  // the group's own event is in. The kit's short ack wait (3 s) and a long retry budget (1 + 2 + ...
  // + 9 s) make sure the group's event comes back well before the dependent one would be dead-lettered.
  maxDeliver: 10,
});

/**
 * Applies one event to the copies and queues its deliveries (written with the rest of the batch's,
 * events/batch-work.ts).
 */
export async function applyEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
  meta: EventMeta,
): Promise<void> {
  if (!KEEPS_KNOWN.has(event.type)) forgetKnown(meta.batch);
  const fired = await applyAndFire(event, tx, meta.batch);
  if (!fired || !deps.plan.groupWebhooks || !fired.groupIds.length) return;
  const { trigger, payload } = fired.built;
  queueDeliveries(deps, tx, meta.batch, {
    delivery: { eventId: event.id, seq: meta.streamSequence, trigger, payload, occurredAt: dateOf(event) },
    groupIds: fired.groupIds,
    flag: HOOK_TRIGGERS[trigger as HookTrigger].flag,
  });
}

/** The events that write no copy the batch reads once (batch-work.ts), or keep it up to date. */
const KEEPS_KNOWN = new Set(
  [
    GROUPS_EVENTS.groupCreated,
    GROUPS_EVENTS.memberAdded,
    GROUPS_EVENTS.memberUpdated,
    GROUPS_EVENTS.memberRemoved,
    GROUPS_EVENTS.membershipRepublished,
    PROJECTS_EVENTS.projectCreated,
  ].map((kind) => kind.type),
);

async function applyAndFire(
  event: events.Event,
  tx: PoolClient,
  batch: BatchScope,
): Promise<Fired | undefined> {
  const at = dateOf(event);
  const created = payloadOf(event, GROUPS_EVENTS.groupCreated)?.group;
  if (created) {
    const row = await upsertNamespace(tx, created, at);
    keepNamespace(batch, row);
    return subgroupEvent(tx, batch, "subgroup_create", row);
  }
  const changed =
    payloadOf(event, GROUPS_EVENTS.groupUpdated)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupTransferred)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupMarkedForDeletion)?.group ??
    payloadOf(event, GROUPS_EVENTS.groupRestored)?.group ??
    payloadOf(event, GROUPS_EVENTS.namespaceRepublished)?.namespace;
  if (changed) {
    const before = await findNamespace(tx, changed.id);
    await upsertNamespace(tx, changed, at);
    if (
      before &&
      (before.path !== changed.path ||
        before.name !== changed.name ||
        before.parent_id !== (changed.parentId || null))
    )
      await rebuildBelow(tx, changed.id);
    return undefined;
  }
  const removed = payloadOf(event, GROUPS_EVENTS.groupRemoved)?.group;
  if (removed) {
    const known = (await findNamespace(tx, removed.id)) ?? (await upsertNamespace(tx, removed, at));
    const fired = await subgroupEvent(tx, batch, "subgroup_destroy", known, at);
    await deleteGroupHooks(tx, removed.id);
    await removeNamespace(tx, removed.id);
    return fired;
  }
  const member = payloadOf(event, GROUPS_EVENTS.memberAdded)?.member;
  if (member) {
    const row = await upsertMember(tx, member, at);
    return memberEvent(tx, batch, "user_add_to_group", member.groupId, member.userId, row);
  }
  const update = payloadOf(event, GROUPS_EVENTS.memberUpdated);
  if (update?.member) {
    const m = update.member;
    const row = await upsertMember(tx, m, at);
    // GitLab fires only when access_level or expires_at really changed.
    if (update.oldAccessLevel === m.accessLevel && (update.oldExpiresAt || "") === (m.expiresAt || ""))
      return;
    return memberEvent(tx, batch, "user_update_for_group", m.groupId, m.userId, row);
  }
  const removal = payloadOf(event, GROUPS_EVENTS.memberRemoved)?.member;
  if (removal) {
    const row = (await findMember(tx, removal.groupId, removal.userId)) ?? {
      access_level: removal.accessLevel,
      expires_at: removal.expiresAt || null,
      created_at: at,
      updated_at: at,
    };
    await deleteMember(tx, removal.groupId, removal.userId);
    return memberEvent(tx, batch, "user_remove_from_group", removal.groupId, removal.userId, row);
  }
  const republished = payloadOf(event, GROUPS_EVENTS.membershipRepublished)?.member;
  if (republished) {
    await upsertMember(tx, republished, at);
    return undefined;
  }
  return applyProjectOrUser(event, tx, batch, at);
}

/** subgroup_create / subgroup_destroy of `group` (its copy), on its parent's hooks and up. */
async function subgroupEvent(
  tx: PoolClient,
  batch: BatchScope,
  name: SubgroupEventName,
  group: NamespaceRow | undefined,
  at?: Date,
): Promise<Fired | undefined> {
  if (!group?.parent_id || group.kind !== "group") return undefined;
  const parent = await namespaceIn(tx, batch, group.parent_id);
  if (!parent && name === "subgroup_create") throw new GroupNotYetKnown(group.parent_id);
  if (!parent) return undefined;
  // A destroyed subgroup's updated_at is the removal's time (GitLab's record is touched by it).
  const subgroup = at ? { ...hookGroupOf(group), updatedAt: at } : hookGroupOf(group);
  return {
    groupIds: parent.traversal_ids,
    built: buildSubgroupPayload(name, subgroup, hookGroupOf(parent)),
  };
}

async function memberEvent(
  tx: PoolClient,
  batch: BatchScope,
  name: MemberEventName,
  groupId: number,
  userId: number,
  row: MemberRow,
): Promise<Fired | undefined> {
  const group = await namespaceIn(tx, batch, groupId);
  // A removal may follow its group's removal and the tombstone's pruning; anything else waits for it.
  if (!group && name !== "user_remove_from_group") throw new GroupNotYetKnown(groupId);
  if (!group || group.kind !== "group") return undefined;
  // Applied after the group's removal (see migration 0005): the ancestors' hooks still get it, the
  // copy keeps no member of a removed group.
  if (group.removed_at) await deleteMember(tx, groupId, userId);
  const user = await userIn(tx, batch, userId);
  return {
    groupIds: group.traversal_ids,
    built: buildMemberPayload(
      name,
      hookGroupOf(group),
      user ? hookUserOf(user) : unknownUser(userId),
      hookMembershipOf(row),
    ),
  };
}
