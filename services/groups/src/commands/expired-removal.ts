import { recordEvent, withTransaction } from "@canopy/kit";
import { GROUPS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteExpiredGroupLinks, deleteExpiredMembers } from "../store/expired";
import { membershipOf } from "./members-common";

const BATCH = 500;

/**
 * GitLab's RemoveExpiredMembersWorker and RemoveExpiredGroupLinksWorker: memberships and group shares
 * past their `expires_at` are removed, each with the event its removal through the API publishes
 * (MemberRemoved, GroupUnshared; no actor: nobody asked). As GitLab's workers do, this skips the
 * last-owner rule (an expired Owner gives no access already) and leaves memberships in subgroups.
 * One batch of each per transaction, events committed with their rows.
 */
export async function removeExpiredBatch(
  deps: Deps,
  batch = BATCH,
): Promise<{ members: number; links: number }> {
  return withTransaction(deps.pool, async (tx) => {
    const members = await deleteExpiredMembers(tx, batch);
    for (const m of members)
      await recordEvent(tx, GROUPS_EVENTS.memberRemoved, {
        member: membershipOf(m),
        withSubresources: false,
      });
    const links = await deleteExpiredGroupLinks(tx, batch);
    for (const l of links)
      await recordEvent(tx, GROUPS_EVENTS.groupUnshared, {
        sharedGroupId: l.shared_group_id,
        sharedWithGroupId: l.shared_with_group_id,
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
  if (total.members || total.links) deps.log.info(total, "expired memberships and shares removed");
  return total;
}
