import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, GROUPS_EVENTS, PROJECTS_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import type { Flag } from "../domain/flags";
import { TRIGGER_OF } from "../domain/flags";
import type { Deps } from "../deps";
import type { PayloadGroup } from "../outbound";
import {
  deleteMember,
  deleteNamespace,
  deleteProject,
  deleteUser,
  findMember,
  findNamespace,
  findProject,
  findUser,
  rebuildBelow,
  setUserState,
  upsertMember,
  upsertNamespace,
  upsertProject,
  upsertUser,
  type NamespaceRow,
} from "../store/copies";
import { insertDeliveries } from "../store/deliveries";
import { deleteGroupHooks, hooksForEvent } from "../store/hooks";

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
  handle: (event, tx, meta) => applyEvent(deps, event, tx, meta.streamSequence),
});

interface Fired {
  flag: Flag;
  groupIds: number[];
  payload: Record<string, unknown>;
}

const dateOf = (event: events.Event) => event.occurredAt ?? new Date();

async function fanOut(deps: Deps, tx: PoolClient, event: events.Event, seq: number, fired: Fired) {
  if (!deps.plan.groupWebhooks || !fired.groupIds.length) return;
  const hooks = await hooksForEvent(tx, fired.groupIds, fired.flag, deps.config.CANOPY_HOOK_AUTO_DISABLE);
  await insertDeliveries(
    tx,
    hooks.map((h) => h.id),
    {
      eventId: event.id,
      seq,
      trigger: TRIGGER_OF[fired.flag],
      payload: fired.payload,
      occurredAt: dateOf(event),
    },
  );
}

export async function applyEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
  seq: number,
): Promise<void> {
  const fired = await applyAndFire(deps, event, tx);
  if (fired) await fanOut(deps, tx, event, seq, fired);
}

const groupOf = (n: NamespaceRow): PayloadGroup => n;

async function applyAndFire(deps: Deps, event: events.Event, tx: PoolClient): Promise<Fired | undefined> {
  const at = dateOf(event);
  const created = payloadOf(event, GROUPS_EVENTS.groupCreated)?.group;
  if (created) {
    await upsertNamespace(tx, created, at);
    return subgroupEvent(deps, tx, "subgroup_create", created.id);
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
    if (!(await findNamespace(tx, removed.id))) await upsertNamespace(tx, removed, at);
    const fired = await subgroupEvent(deps, tx, "subgroup_destroy", removed.id, at);
    await deleteGroupHooks(tx, removed.id);
    await deleteNamespace(tx, removed.id);
    return fired;
  }
  const member = payloadOf(event, GROUPS_EVENTS.memberAdded)?.member;
  if (member) {
    const row = await upsertMember(tx, member, at);
    return memberEvent(deps, tx, "user_add_to_group", member.groupId, member.userId, row);
  }
  const update = payloadOf(event, GROUPS_EVENTS.memberUpdated);
  if (update?.member) {
    const m = update.member;
    const row = await upsertMember(tx, m, at);
    // GitLab fires only when access_level or expires_at really changed.
    if (update.oldAccessLevel === m.accessLevel && (update.oldExpiresAt || "") === (m.expiresAt || ""))
      return;
    return memberEvent(deps, tx, "user_update_for_group", m.groupId, m.userId, row);
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
    return memberEvent(deps, tx, "user_remove_from_group", removal.groupId, removal.userId, row);
  }
  const republished = payloadOf(event, GROUPS_EVENTS.membershipRepublished)?.member;
  if (republished) {
    await upsertMember(tx, republished, at);
    return undefined;
  }
  return applyProjectOrUser(deps, event, tx, at);
}

/** subgroup_create / subgroup_destroy of group `id`, on its parent's hooks and up. */
async function subgroupEvent(
  deps: Deps,
  tx: PoolClient,
  name: "subgroup_create" | "subgroup_destroy",
  id: number,
  at?: Date,
): Promise<Fired | undefined> {
  const group = await findNamespace(tx, id);
  if (!group?.parent_id || group.kind !== "group") return undefined;
  const parent = await findNamespace(tx, group.parent_id);
  if (!parent) return undefined;
  const payloadGroup = at ? { ...groupOf(group), updated_at: at } : groupOf(group);
  return {
    flag: "subgroup_events",
    groupIds: parent.traversal_ids,
    payload: deps.payloads.subgroup(name, payloadGroup, groupOf(parent)),
  };
}

async function memberEvent(
  deps: Deps,
  tx: PoolClient,
  name: "user_add_to_group" | "user_update_for_group" | "user_remove_from_group",
  groupId: number,
  userId: number,
  row: { access_level: number; expires_at: string | null; created_at: Date; updated_at: Date },
): Promise<Fired | undefined> {
  const group = await findNamespace(tx, groupId);
  if (!group || group.kind !== "group") return undefined;
  const user = (await findUser(tx, userId)) ?? { id: userId, username: "", name: "", email: "" };
  return {
    flag: "member_events",
    groupIds: group.traversal_ids,
    payload: deps.payloads.member(name, {
      group: groupOf(group),
      user,
      access_level: row.access_level,
      expires_at: row.expires_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
      group_plan: null,
    }),
  };
}

async function applyProjectOrUser(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
  at: Date,
): Promise<Fired | undefined> {
  const created = payloadOf(event, PROJECTS_EVENTS.projectCreated)?.project;
  if (created) {
    await upsertProject(tx, created, at);
    return projectEvent(deps, tx, "project_create", created.id, created.traversalIds);
  }
  const changed =
    payloadOf(event, PROJECTS_EVENTS.projectUpdated)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectArchived)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectUnarchived)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectMarkedForDeletion)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectRestored)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectTransferred)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectRepublished)?.project;
  if (changed) {
    await upsertProject(tx, changed, at);
    return undefined;
  }
  const removed = payloadOf(event, PROJECTS_EVENTS.projectRemoved)?.project;
  if (removed) {
    await upsertProject(tx, removed, at);
    const fired = await projectEvent(deps, tx, "project_destroy", removed.id, removed.traversalIds);
    await deleteProject(tx, removed.id);
    return fired;
  }
  const snapshot = payloadOf(event, AUTH_EVENTS.userCreated) ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) {
    const u = userSnapshotOf(snapshot);
    await upsertUser(tx, {
      id: u.userId,
      username: u.username,
      name: u.name,
      email: u.email,
      state: u.state,
    });
    return undefined;
  }
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) await setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) await setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) await deleteUser(tx, deleted.userId);
  return undefined;
}

async function projectEvent(
  deps: Deps,
  tx: PoolClient,
  name: "project_create" | "project_destroy",
  id: number,
  traversalIds: number[],
): Promise<Fired | undefined> {
  const project = await findProject(tx, id);
  if (!project) return undefined;
  return { flag: "project_events", groupIds: traversalIds, payload: deps.payloads.project(name, project) };
}
