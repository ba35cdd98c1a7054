import { recordEvent, withTransaction, type PoolClient, type Timer } from "@canopy/kit";
import { PROJECTS_EVENTS, type common } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  deleteExpiredMemberships,
  deleteExpiredProjectLinks,
  deleteMembershipsBelow,
} from "../store/member-removals";
import { insertLeaveEvent } from "../store/events";
import { membershipOf } from "./members-add";

const BATCH = 500;

/**
 * A user removed from a group without `skip_subresources` (the groups service's MemberRemoved with
 * `with_subresources`): their direct memberships in the projects of the group and its subgroups go
 * too, as GitLab's Members::DestroyService does, each with its MemberRemoved (the groups event's
 * actor as the remover). Applied in the consumer's transaction, so at most once.
 */
export async function removeMembershipsBelow(
  tx: PoolClient,
  groupId: number,
  userId: number,
  actor: common.Actor | undefined,
): Promise<number> {
  const removed = await deleteMembershipsBelow(tx, groupId, userId);
  for (const m of removed) {
    await recordEvent(tx, PROJECTS_EVENTS.memberRemoved, { member: membershipOf(m) }, actor);
    await insertLeaveEvent(tx, m);
  }
  return removed.length;
}

/**
 * GitLab's RemoveExpiredMembersWorker and RemoveExpiredGroupLinksWorker for projects: memberships
 * and shares with groups past their `expires_at` are removed, each with the event its removal
 * through the API publishes (no actor: nobody asked). One batch of each per transaction.
 */
export async function removeExpiredBatch(
  deps: Deps,
  batch = BATCH,
): Promise<{ members: number; links: number }> {
  return withTransaction(deps.pool, async (tx) => {
    const members = await deleteExpiredMemberships(tx, batch);
    for (const m of members) {
      await recordEvent(tx, PROJECTS_EVENTS.memberRemoved, { member: membershipOf(m) });
      await insertLeaveEvent(tx, m);
    }
    const links = await deleteExpiredProjectLinks(tx, batch);
    for (const l of links)
      await recordEvent(tx, PROJECTS_EVENTS.projectUnshared, {
        projectId: l.project_id,
        groupId: l.group_id,
      });
    return { members: members.length, links: links.length };
  });
}

/** Removes batches until none is left; answers how many of each went. */
export async function runExpiredRemovals(deps: Deps): Promise<{ members: number; links: number }> {
  const total = { members: 0, links: 0 };
  for (;;) {
    const removed = await removeExpiredBatch(deps);
    total.members += removed.members;
    total.links += removed.links;
    if (removed.members < BATCH && removed.links < BATCH) break;
  }
  if (total.members || total.links) deps.log.info(total, "expired project memberships and shares removed");
  return total;
}

/**
 * The daily removal on every replica, and once right after each start (rows are taken FOR UPDATE
 * SKIP LOCKED, so replicas never remove one twice); 0 turns it off.
 */
export function expiredRemovalTimers(deps: Deps): Timer[] {
  const every = deps.config.CANOPY_PROJECTS_EXPIRED_REMOVAL_MS;
  if (!every) return [];
  let running: Promise<unknown> | undefined;
  return [
    {
      name: "expired project memberships and shares",
      everyMs: every,
      afterStart: true,
      run: () => (running ??= runExpiredRemovals(deps).finally(() => (running = undefined))),
    },
  ];
}
