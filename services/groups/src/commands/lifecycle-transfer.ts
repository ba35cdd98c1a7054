import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  recordEvent,
  requireSignedIn,
  type PoolClient,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type groupLifecycle, type groups } from "@canopy/protos";
import { abilities, OWNER } from "../domain/access";
import { MAX_NESTING } from "../domain/group-rules";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { callerAccess, groupDetail, resolveGroup } from "../finders/groups";
import { hasDirectOwner, makeDirectOwner, moveSubtree, subtreeHeight } from "../store/lifecycle";
import { fullPathTaken, type NamespaceRow } from "../store/namespaces";
import { findUser } from "../store/users";
import { withTreesLocked } from "./lifecycle-locks";

/** Groups::TransferService's reasons, each answered 400 "Transfer failed: <reason>". */
export const TRANSFER_ERRORS = {
  alreadyRoot: "Group is already a root group.",
  sameParent: "Group is already associated to the parent group.",
  permissions: "You don't have enough permissions.",
  samePath: "The parent group already has a subgroup with the same path.",
  intoSubgroup: "Cannot transfer group to one of its subgroup.",
  // The model's nesting validation, as ActiveRecord::RecordInvalid words it.
  tooDeep: "Validation failed: Parent has too deep level of nesting",
} as const;

const failed = (reason: keyof typeof TRANSFER_ERRORS) =>
  apiError(400, `Transfer failed: ${TRANSFER_ERRORS[reason]}`, grpcStatus.FAILED_PRECONDITION);

const admin = (access: number, row: NamespaceRow) =>
  abilities(access, { subgroupCreationLevel: row.subgroup_creation_level }).admin;

/**
 * POST /groups/:id/transfer (reference §4.12): the group (404), admin_group on it (403), the new
 * parent (404), then GitLab's checks in its order (400), again under both trees' locks since a
 * concurrent move may have changed the answer. One statement moves the whole subtree.
 */
export async function transferGroup(
  deps: Deps,
  req: groupLifecycle.TransferGroupRequest,
): Promise<groups.GroupDetail> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveGroup(deps, actor, req.group);
  if (!admin(found.access, found.row)) throw forbidden();
  const target = req.newParentId
    ? await resolveGroup(deps, actor, { id: req.newParentId, fullPath: "" })
    : undefined;
  const mayCreateHere = target
    ? abilities(target.access, { subgroupCreationLevel: target.row.subgroup_creation_level }).createSubgroup
    : actor.admin || Boolean((await findUser(deps.pool, actor.userId))?.can_create_group);

  const ids = target ? [found.row.id, target.row.id] : [found.row.id];
  const moved = await withTreesLocked(deps, ids, async (tx, [group, parent]) => {
    if (!group || group.pending_removal) throw notFound("Group");
    if (target && (!parent || parent.pending_removal)) throw notFound("Group");
    await ensureAllowed(tx, group, parent, mayCreateHere);
    const old = {
      parentId: group.parent_id ?? 0,
      fullPath: group.full_path,
      traversalIds: group.traversal_ids,
    };
    const row = await moveSubtree(tx, group, parent);
    if (!parent && !(await hasDirectOwner(tx, row.id))) await addCallerAsOwner(tx, row.id, actor);
    await recordEvent(
      tx,
      GROUPS_EVENTS.groupTransferred,
      {
        group: namespaceSnapshot(row),
        oldParentId: old.parentId,
        oldFullPath: old.fullPath,
        oldTraversalIds: old.traversalIds,
      },
      actor,
    );
    return row;
  });
  // The caller's access may differ in the new place; GitLab answers with the group regardless.
  const access = await callerAccess(deps.pool, actor, moved);
  return groupDetail(deps, actor, { row: moved, access: access.accessLevel });
}

/** Groups::TransferService#ensure_allowed_transfer's checks, in its order, on rows read under lock. */
async function ensureAllowed(
  tx: PoolClient,
  group: NamespaceRow,
  parent: NamespaceRow | undefined,
  mayCreateHere: boolean,
) {
  if (!parent && !group.parent_id) throw failed("alreadyRoot");
  if (parent && parent.id === group.parent_id) throw failed("sameParent");
  if (!mayCreateHere) throw failed("permissions");
  const newFullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
  if (await fullPathTaken(tx, newFullPath, group.id)) throw failed("samePath");
  if (parent && parent.traversal_ids.includes(group.id)) throw failed("intoSubgroup");
  const depth = (parent?.traversal_ids.length ?? 0) + 1 + (await subtreeHeight(tx, group.traversal_ids));
  // As POST /groups allows: no traversal longer than MAX_NESTING, the deepest descendant included.
  if (depth > MAX_NESTING) throw failed("tooDeep");
}

/** A group that becomes top-level without a direct Owner gets the caller as one (GitLab's ensure_ownership). */
async function addCallerAsOwner(tx: PoolClient, groupId: number, actor: common.Actor) {
  const { member, oldAccessLevel, oldExpiresAt } = await makeDirectOwner(tx, groupId, actor.userId);
  const membership = {
    groupId,
    userId: member.user_id,
    accessLevel: OWNER,
    expiresAt: member.expires_at ?? "",
    createdById: member.created_by_id ?? 0,
  };
  if (oldAccessLevel)
    await recordEvent(
      tx,
      GROUPS_EVENTS.memberUpdated,
      { member: membership, oldAccessLevel, oldExpiresAt: oldExpiresAt ?? "" },
      actor,
    );
  else await recordEvent(tx, GROUPS_EVENTS.memberAdded, { member: membership }, actor);
}
