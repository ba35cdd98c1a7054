import { notFound, OWNER } from "@canopy/kit";
import type { common, groups } from "@canopy/protos";
import { canReadGroup } from "../domain/visibility";
import type { Deps } from "../deps";
import { accessTo } from "../store/access";
import { findCustomAttributes } from "../store/custom-attributes";
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from "../store/namespaces";
import type { Queryable } from "@canopy/kit";
import { runnersTokenOf } from "./runners-token";
import { sharedWithGroups } from "./shared-with-groups";
import { toGroup } from "./group-view";

/** A group the caller may see, with their effective access to it (50 for administrators). */
export interface VisibleGroup {
  row: NamespaceRow;
  access: number;
}

/** The caller's effective access to a namespace and whether they hold access below it. */
export async function callerAccess(db: Queryable, actor: common.Actor | undefined, row: NamespaceRow) {
  if (actor?.admin) return { accessLevel: OWNER, below: true };
  if (!actor?.userId) return { accessLevel: 0, below: false };
  const found = await accessTo(db, actor.userId, row.traversal_ids);
  return { accessLevel: found.access_level, below: found.below };
}

/**
 * Finds the group at `ref` (id, or full path case-insensitively) and checks that the caller may see
 * it. Missing and invisible are the same answer: 404 "Group Not Found" (GitLab's find_group!).
 */
export async function resolveGroup(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
  db: Queryable = deps.pool,
): Promise<VisibleGroup> {
  const row = ref?.id
    ? await findNamespaceById(db, ref.id)
    : ref?.fullPath
      ? await findNamespaceByPath(db, ref.fullPath)
      : undefined;
  // A group being removed is gone for every caller (reference §4.5, "deletion in progress").
  if (!row || row.kind !== "group" || row.pending_removal) throw notFound("Group");
  const access = await callerAccess(db, actor, row);
  const viewer = {
    userId: actor?.userId ?? 0,
    admin: Boolean(actor?.admin),
    external: Boolean(actor?.external),
  };
  if (!canReadGroup(row.visibility_level, viewer, access)) throw notFound("Group");
  return { row, access: access.accessLevel };
}

/** GitLab's GroupDetail of a visible group, as the caller may see it. */
export async function groupDetail(
  deps: Deps,
  actor: common.Actor | undefined,
  found: VisibleGroup,
  options: { withRunnersToken?: boolean } = {},
): Promise<groups.GroupDetail> {
  return {
    group: toGroup(deps, found.row),
    sharedWithGroups: await sharedWithGroups(deps, actor, found.row.id),
    // Only for those who administer the group (admin_group: Owners and administrators).
    runnersToken:
      options.withRunnersToken && found.access >= OWNER ? await runnersTokenOf(deps, found.row) : undefined,
    accessLevel: found.access,
  };
}

export async function getGroup(deps: Deps, req: groups.GetGroupRequest): Promise<groups.GroupDetail> {
  const found = await resolveGroup(deps, req.actor, req.group);
  const detail = await groupDetail(deps, req.actor, found, { withRunnersToken: req.withRunnersToken });
  // Administrators only; silently ignored for everyone else (reference §7.22).
  if (req.withCustomAttributes && req.actor?.admin)
    detail.group!.customAttributes = await findCustomAttributes(deps.pool, found.row.id);
  return detail;
}
