import { apiError, forbidden, grpcStatus, recordNotFound, withTransaction } from "@canopy/kit";
import type { groupMembers } from "@canopy/protos";
import { canAdminMembers, isLastOwner } from "../domain/members";
import type { Deps } from "../deps";
import {
  countOtherOwners,
  deleteDescendantMemberships,
  deleteMembership,
  findMembership,
} from "../store/members";
import { groupForMemberWrite, lockTreeOfGroup, recordMemberRemoved } from "./members-common";

const preconditionFailed = () => apiError(412, "412 Precondition Failed", grpcStatus.FAILED_PRECONDITION);

/**
 * DELETE /groups/:id/members/:user_id (reference §4.17), in GitLab's order: group visible (404), a
 * direct member (404 "Not found"), If-Unmodified-Since (412, destroy_conditionally! runs before the
 * service), then GroupMemberPolicy: Owners may remove anyone and members themselves (403), never
 * the last Owner of the group and its ancestors (403). Unless `skip_subresources`, the user's direct
 * memberships in subgroups go too, and (by the projects service, on the first event's
 * `with_subresources`) in the projects below. One MemberRemoved per removed row.
 */
export async function removeMember(
  deps: Deps,
  req: groupMembers.RemoveMemberRequest,
): Promise<groupMembers.RemoveMemberResponse> {
  const { actor, group } = await groupForMemberWrite(deps, req.actor, req.group);
  const found = await findMembership(deps.pool, group.row.id, req.userId);
  if (!found) throw recordNotFound();
  if (req.unmodifiedSince && found.updated_at > req.unmodifiedSince) throw preconditionFailed();
  if (!canAdminMembers(group.access) && found.user_id !== actor.userId) throw forbidden();
  await withTransaction(deps.pool, async (tx) => {
    const row = await lockTreeOfGroup(tx, group.row.id);
    const member = row && (await findMembership(tx, row.id, req.userId));
    if (!row || !member) throw recordNotFound();
    const others = await countOtherOwners(tx, row.traversal_ids, member.id);
    if (isLastOwner({ accessLevel: member.access_level }, others)) throw forbidden();
    const removed = await deleteMembership(tx, member.id);
    // The projects service removes the user's project memberships below on this event's flag.
    if (removed) await recordMemberRemoved(tx, removed, actor, !req.skipSubresources);
    if (req.skipSubresources) return;
    for (const m of await deleteDescendantMemberships(tx, row.id, req.userId))
      await recordMemberRemoved(tx, m, actor);
  });
  return {};
}
