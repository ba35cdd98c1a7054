import {
  apiError,
  forbidden,
  grpcStatus,
  notFound,
  OWNER,
  type PoolClient,
  recordEvent,
  requireSignedIn,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type groupLifecycle, type groups } from "@canopy/protos";
import { abilities } from "../domain/access";
import { MAX_NESTING } from "../domain/group-rules";
import {
  sharedRunnersBelow,
  sharedRunnersUnder,
  TWO_FACTOR_FORBIDDEN_ON_TRANSFER,
} from "../domain/tree-settings";
import type { Deps } from "../deps";
import { projectPathTaken } from "../store/projects";
import { namespaceSnapshot } from "../events/snapshot";
import { callerAccess, groupDetail, resolveGroup } from "../finders/groups";
import { hasDirectOwner, makeDirectOwner, moveSubtree, subtreeHeight } from "../store/lifecycle";
import {
  closeSharedRunnersBelow,
  disallowTwoFactor,
  rootAllowsTwoFactor,
  updateGroupColumns,
} from "../store/group-updates";
import { findNamespaceById, fullPathTaken, type NamespaceRow } from "../store/namespaces";
import { findUser } from "../store/users";
import { withTreesLocked } from "./lifecycle-locks";

/** Groups::TransferService's reasons, each answered 400 "Transfer failed: <reason>". */
export const TRANSFER_ERRORS = {
  alreadyRoot: "Group is already a root group.",
  sameParent: "Group is already associated to the parent group.",
  permissions: "You don't have enough permissions.",
  samePath: "The parent group already has a subgroup with the same path.",
  intoSubgroup: "Cannot transfer group to one of its subgroup.",
  // The model's validations, as ActiveRecord::RecordInvalid words them.
  tooDeep: "Validation failed: Parent has too deep level of nesting",
  twoFactorForbidden: TWO_FACTOR_FORBIDDEN_ON_TRANSFER,
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
    const placed = await moveSubtree(tx, group, parent);
    const row = parent ? await adjustToNewParent(tx, placed, parent) : placed;
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
  // A project of the new parent holds its path as well (projects and subgroups share routes).
  if (
    (await fullPathTaken(tx, newFullPath, group.id)) ||
    (parent && (await projectPathTaken(tx, parent.id, group.path)))
  )
    throw failed("samePath");
  if (parent && parent.traversal_ids.includes(group.id)) throw failed("intoSubgroup");
  const depth = (parent?.traversal_ids.length ?? 0) + 1 + (await subtreeHeight(tx, group.traversal_ids));
  // As POST /groups allows: no traversal longer than MAX_NESTING, the deepest descendant included.
  if (depth > MAX_NESTING) throw failed("tooDeep");
  // A group requiring 2FA fails the model's validation under a root that forbids it, unless the new
  // parent is that root itself: then the transfer turns the requirement off (see adjustToNewParent).
  if (parent?.parent_id && group.require_two_factor_authentication) {
    if (!(await rootAllowsTwoFactor(tx, parent.traversal_ids[0]!))) throw failed("twoFactorForbidden");
  }
}

/**
 * What the move changes beyond the tree (Groups::TransferService#update_group_attributes): under a
 * top-level group that forbids 2FA to its subgroups, neither the group nor anything below it
 * requires it any more (GitLab asks this of the new parent only and leaves a deeper move's
 * descendants as they were; Canopy keeps the whole tree to the rule); shared runners more open than
 * the new parent's take the parent's setting, with what that setting does below.
 */
async function adjustToNewParent(tx: PoolClient, moved: NamespaceRow, parent: NamespaceRow) {
  if (!(await rootAllowsTwoFactor(tx, parent.traversal_ids[0]!)))
    await disallowTwoFactor(tx, moved.traversal_ids, { withSelf: true });
  const runners = sharedRunnersUnder(moved.shared_runners_setting, parent.shared_runners_setting);
  if (runners) {
    await updateGroupColumns(tx, moved.id, { shared_runners_setting: runners });
    const below = sharedRunnersBelow(runners, moved.shared_runners_setting === "enabled");
    if (below) await closeSharedRunnersBelow(tx, moved.traversal_ids, below);
  }
  return (await findNamespaceById(tx, moved.id))!;
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
