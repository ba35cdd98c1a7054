import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  planFeatures,
  recordEvent,
  requireSignedIn,
} from "@canopy/kit";
import { GROUPS_EVENTS, type groupLifecycle, type groups } from "@canopy/protos";
import { abilities } from "../domain/access";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { groupDetail, resolveGroup } from "../finders/groups";
import { clearDeletionMark } from "../store/lifecycle";
import { withTreesLocked } from "./lifecycle-locks";

export const NOT_MARKED = "Group has not been marked for deletion";

/**
 * POST /groups/:id/restore (reference §4.6, EE): lookup (404), Owner or administrator (403), the
 * feature licensed (else 404 "404 Not Found"), marked (else 400). Under the tree's lock, so a
 * removal the scheduler queued is dropped before a worker can take it.
 */
export async function restoreGroup(
  deps: Deps,
  req: groupLifecycle.RestoreGroupRequest,
): Promise<groups.GroupDetail> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveGroup(deps, actor, req.group);
  if (!abilities(found.access, { subgroupCreationLevel: found.row.subgroup_creation_level }).admin)
    throw forbidden();
  if (!planFeatures(deps.config.CANOPY_PLAN).adjournedDeletion)
    throw apiError(404, "404 Not Found", grpcStatus.NOT_FOUND);
  const row = await withTreesLocked(deps, [found.row.id], async (tx, [fresh]) => {
    if (!fresh || fresh.pending_removal) throw notFound("Group");
    if (!fresh.marked_for_deletion_on) throw apiError(400, NOT_MARKED, grpcStatus.FAILED_PRECONDITION);
    const restored = await clearDeletionMark(tx, fresh.id);
    await recordEvent(tx, GROUPS_EVENTS.groupRestored, { group: namespaceSnapshot(restored) }, actor);
    return restored;
  });
  return groupDetail(deps, actor, { row, access: found.access });
}
