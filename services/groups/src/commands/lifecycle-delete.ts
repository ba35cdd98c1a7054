import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  planFeatures,
  recordEvent,
  requireSignedIn,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type groupLifecycle } from "@canopy/protos";
import { abilities } from "../domain/access";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { resolveGroup } from "../finders/groups";
import { markForDeletion, requestRemoval, type RemovalReason } from "../store/lifecycle";
import type { NamespaceRow } from "../store/namespaces";
import { withTreesLocked } from "./lifecycle-locks";

const badRequest = (message: string) => apiError(400, message, grpcStatus.FAILED_PRECONDITION);

export const ALREADY_MARKED = "Group has been already marked for deletion";
export const ONLY_SUBGROUPS = "`permanently_remove` option is only available for subgroups.";
export const MARK_FIRST = "Group must be marked for deletion first.";
export const WRONG_FULL_PATH = "`full_path` is incorrect. You must enter the complete path for the subgroup.";

/**
 * True when DELETE marks instead of removing: premium and up, with an adjourned period; GitLab
 * removes at once (in the background) when the period is 0.
 */
export const deletionIsAdjourned = (deps: Deps) =>
  planFeatures(deps.config.CANOPY_PLAN).adjournedDeletion &&
  deps.settings.current().deletionAdjournedPeriod > 0;

/**
 * DELETE /groups/:id (reference §4.5): lookup (404), Owner or administrator (403),
 * If-Unmodified-Since (412), then remove in the background, mark, or with `permanently_remove`
 * remove an already marked subgroup now.
 */
export async function deleteGroup(
  deps: Deps,
  req: groupLifecycle.DeleteGroupRequest,
): Promise<groupLifecycle.DeleteGroupResponse> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveGroup(deps, actor, req.group);
  if (!abilities(found.access, { subgroupCreationLevel: found.row.subgroup_creation_level }).admin)
    throw forbidden();
  // GitLab compares with the header's whole seconds: a group changed within that second is newer.
  if (req.unmodifiedSince && found.row.updated_at > req.unmodifiedSince)
    throw apiError(412, "412 Precondition Failed", grpcStatus.FAILED_PRECONDITION);

  if (!deletionIsAdjourned(deps)) {
    await startRemoval(deps, actor, found.row.id, "delete");
    return { markedForDeletion: false };
  }
  if (req.permanentlyRemove) {
    if (!found.row.parent_id) throw badRequest(ONLY_SUBGROUPS);
    if (!found.row.marked_for_deletion_on) throw badRequest(MARK_FIRST);
    if (req.fullPath !== found.row.full_path) throw badRequest(WRONG_FULL_PATH);
    await startRemoval(deps, actor, found.row.id, "permanent");
    return { markedForDeletion: false };
  }
  await withTreesLocked(deps, [found.row.id], async (tx, [row]) => {
    if (!row || row.pending_removal) throw notFound("Group");
    // Terraform's provider reads exactly this answer as "already deleted".
    if (row.marked_for_deletion_on) throw badRequest(ALREADY_MARKED);
    const marked = await markForDeletion(tx, row.id, actor.userId);
    await recordEvent(tx, GROUPS_EVENTS.groupMarkedForDeletion, { group: namespaceSnapshot(marked) }, actor);
  });
  return { markedForDeletion: true };
}

/** Hides the subtree and queues its removal, under the tree's lock (no subgroup appears meanwhile). */
async function startRemoval(deps: Deps, actor: common.Actor, id: number, reason: RemovalReason) {
  await withTreesLocked(deps, [id], async (tx, [row]: (NamespaceRow | undefined)[]) => {
    if (!row || row.pending_removal) throw notFound("Group");
    await requestRemoval(tx, row, reason, actor.userId);
  });
}
