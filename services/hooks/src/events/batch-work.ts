import { context, payloadOf, propagation, type BatchScope, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, PROJECTS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  findNamespace,
  findNamespaces,
  findUser,
  findUsers,
  type NamespaceRow,
  type UserRow,
} from "../store/copies";
import { insertDeliveries, type EventDeliveries } from "../store/deliveries";

// What the events consumer does once for a whole batch of events (the kit's BatchScope) rather than
// once per event: each of its round trips is paid by every event, and one replica applies the
// stream in order, one batch after another, so they bound how many events a second it applies.

const DELIVERIES = "hooks:deliveries";
const KNOWN = "hooks:known";

/** An event's deliveries, written with the batch's others in one statement before it commits. */
export function queueDeliveries(
  deps: Deps,
  tx: PoolClient,
  batch: BatchScope,
  item: Omit<EventDeliveries, "traceContext">,
): void {
  let queued = batch.memo.get(DELIVERIES) as EventDeliveries[] | undefined;
  if (!queued) {
    const list: EventDeliveries[] = (queued = []);
    batch.memo.set(DELIVERIES, list);
    batch.beforeCommit(DELIVERIES, async () => {
      await insertDeliveries(tx, list, deps.config.CANOPY_HOOK_AUTO_DISABLE);
    });
  }
  // The event's span (the kit's consumer span): each delivery's send continues it (worker/send-runs.ts).
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  queued.push({ ...item, traceContext });
}

/** The groups and users the batch's member and subgroup events name, read in two statements. */
interface Known {
  namespaces: Map<number, NamespaceRow>;
  users: Map<number, UserRow>;
}

async function known(tx: PoolClient, batch: BatchScope): Promise<Known> {
  const had = batch.memo.get(KNOWN) as Known | undefined;
  if (had) return had;
  const groupIds = new Set<number>();
  const userIds = new Set<number>();
  for (const event of batch.events) {
    const group = payloadOf(event, GROUPS_EVENTS.groupCreated)?.group;
    if (group?.parentId) groupIds.add(group.parentId);
    const member =
      payloadOf(event, GROUPS_EVENTS.memberAdded)?.member ??
      payloadOf(event, GROUPS_EVENTS.memberUpdated)?.member ??
      payloadOf(event, GROUPS_EVENTS.memberRemoved)?.member;
    if (member) {
      groupIds.add(member.groupId);
      userIds.add(member.userId);
    }
    const project = payloadOf(event, PROJECTS_EVENTS.projectCreated)?.project;
    if (project) groupIds.add(project.namespaceId);
  }
  const [namespaces, users] = await Promise.all([
    findNamespaces(tx, [...groupIds]),
    findUsers(tx, [...userIds]),
  ]);
  const found: Known = {
    namespaces: new Map(namespaces.map((n) => [n.id, n])),
    users: new Map(users.map((u) => [u.id, u])),
  };
  batch.memo.set(KNOWN, found);
  return found;
}

/** A group's copy as the batch has it so far (read with the batch's others, or written by it). */
export async function namespaceIn(tx: PoolClient, batch: BatchScope, id: number) {
  return (await known(tx, batch)).namespaces.get(id) ?? (await findNamespace(tx, id));
}

export async function userIn(tx: PoolClient, batch: BatchScope, id: number) {
  return (await known(tx, batch)).users.get(id) ?? (await findUser(tx, id));
}

/** A group's copy the batch just wrote. */
export function keepNamespace(batch: BatchScope, row: NamespaceRow): void {
  (batch.memo.get(KNOWN) as Known | undefined)?.namespaces.set(row.id, row);
}

/** Any other write to the copies: what the batch read may be stale from here on. */
export function forgetKnown(batch: BatchScope): void {
  batch.memo.delete(KNOWN);
}
