import {
  apiError,
  badParameter,
  conflict,
  grpcStatus,
  notFound,
  recordEvent,
  requireSignedIn,
  withTransaction,
  type PoolClient,
} from "@canopy/kit";
import { GROUPS_EVENTS, type groups, type groupSharing } from "@canopy/protos";
import { abilities } from "../domain/access";
import { ALREADY_SHARED, isDate, isLinkAccessLevel, sharingAllowed } from "../domain/sharing";
import type { Deps } from "../deps";
import { groupDetail, resolveGroup } from "../finders/groups";
import { findNamespaceById, lockTreesOf, type NamespaceRow } from "../store/namespaces";
import { deleteGroupLink, findGroupLink, insertGroupLink } from "../store/sharing";

/** GitLab's CreateService answers every refusal with this bare 404 (reference §4.13, §5.4). */
const notPermitted = () => apiError(404, "Not Found", grpcStatus.NOT_FOUND);

/**
 * POST /groups/:id/share (reference §4.13, hooks-ldap-pushrules-sharing §5): both groups must be
 * visible (404 "Group Not Found"); then the caller must administer the shared group's members and
 * the root's prevent_sharing_groups_outside_hierarchy must admit the invited group, else the bare
 * 404 "Not Found"; a second link between the same pair is 409. Answers the shared group's detail.
 */
export async function shareGroup(
  deps: Deps,
  req: groupSharing.ShareGroupRequest,
): Promise<groups.GroupDetail> {
  const actor = requireSignedIn(req.actor);
  // The gateway validates these as Grape does; checked again for callers other than the gateway.
  if (!isLinkAccessLevel(req.groupAccess)) throw badParameter("group_access does not have a valid value");
  if (req.expiresAt && !isDate(req.expiresAt)) throw badParameter("expires_at is invalid");
  const shared = await resolveGroup(deps, actor, req.group);
  const invited = await resolveGroup(deps, actor, { id: req.sharedWithGroupId, fullPath: "" });
  if (!abilities(shared.access, { subgroupCreationLevel: shared.row.subgroup_creation_level }).admin)
    throw notPermitted();

  const row = await withTransaction(deps.pool, async (tx) => {
    // Under both roots' locks no transfer can move either group across the hierarchy check.
    const [sharedRow, invitedRow] = await lockBothTrees(tx, [shared.row.id, invited.row.id]);
    const root = await findNamespaceById(tx, sharedRow!.traversal_ids[0]!);
    if (!root || !sharingAllowed(root, invitedRow!.traversal_ids)) throw notPermitted();
    const link = await insertGroupLink(tx, {
      sharedGroupId: sharedRow!.id,
      sharedWithGroupId: invitedRow!.id,
      groupAccess: req.groupAccess,
      expiresAt: req.expiresAt || null,
    });
    if (!link) throw conflict(ALREADY_SHARED);
    await recordEvent(
      tx,
      GROUPS_EVENTS.groupShared,
      {
        sharedGroupId: link.shared_group_id,
        sharedWithGroupId: link.shared_with_group_id,
        groupAccess: link.group_access,
        expiresAt: link.expires_at ?? "",
      },
      actor,
    );
    return sharedRow!;
  });
  return groupDetail(deps, actor, { row, access: shared.access });
}

/**
 * DELETE /groups/:id/share/:group_id (reference §4.14): the group must be visible (404 "Group Not
 * Found") and linked to `group_id` (404 "Group Link Not Found"). A caller who may not administer
 * its members is answered as if it worked, and nothing is removed: GitLab ignores the refusal.
 */
export async function unshareGroup(
  deps: Deps,
  req: groupSharing.UnshareGroupRequest,
): Promise<groupSharing.UnshareGroupResponse> {
  const actor = requireSignedIn(req.actor);
  const shared = await resolveGroup(deps, actor, req.group);
  if (!(await findGroupLink(deps.pool, shared.row.id, req.sharedWithGroupId))) throw notFound("Group Link");
  if (!abilities(shared.access, { subgroupCreationLevel: shared.row.subgroup_creation_level }).admin)
    return { removed: false };
  await withTransaction(deps.pool, async (tx) => {
    const removed = await deleteGroupLink(tx, shared.row.id, req.sharedWithGroupId);
    // Another request removed it between the lookup and now.
    if (!removed) throw notFound("Group Link");
    await recordEvent(
      tx,
      GROUPS_EVENTS.groupUnshared,
      { sharedGroupId: removed.shared_group_id, sharedWithGroupId: removed.shared_with_group_id },
      actor,
    );
  });
  return { removed: true };
}

/** The trees of both groups locked (see lockTreesOf); a group removed meanwhile is not found. */
async function lockBothTrees(tx: PoolClient, ids: number[]): Promise<NamespaceRow[]> {
  const rows = await lockTreesOf(tx, ids);
  if (rows.some((r) => !r)) throw notFound("Group");
  return rows as NamespaceRow[];
}
