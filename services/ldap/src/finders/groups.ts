import { forbidden, notFound, requireSignedIn } from "@canopy/kit";
import type { common, groups } from "@canopy/protos";
import { canAdminGroup, canReadGroup } from "../domain/access";
import type { Deps } from "../deps";
import { accessOf, findGroupByRef, memberBelow, type GroupRow } from "../store/groups";

/**
 * The link routes' lookup (GitLab's `find_group` without a bang, then `authorize! :admin_group`):
 * signed in (401), then Owner or administrator of a group that exists, else 403 — a group that does
 * not exist or is hidden is a 403 too, never a 404.
 */
export async function groupForLinks(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
): Promise<{ actor: common.Actor; group: GroupRow }> {
  const signedIn = requireSignedIn(actor);
  const group = await findGroupByRef(deps.pool, ref);
  if (!group || !canAdminGroup(signedIn, await accessOf(deps.pool, group, signedIn.userId)))
    throw forbidden();
  return { actor: signedIn, group };
}

/**
 * `POST /groups/:id/ldap_sync`'s lookup (`find_group!`, then `authorize! :admin_group`): a group the
 * caller may not see is 404 "Group Not Found", one they see but do not own 403.
 */
export async function groupForSync(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
): Promise<{ actor: common.Actor; group: GroupRow }> {
  const signedIn = requireSignedIn(actor);
  const group = await findGroupByRef(deps.pool, ref);
  if (!group) throw notFound("Group");
  const access = await accessOf(deps.pool, group, signedIn.userId);
  const below = access > 0 ? false : await memberBelow(deps.pool, group, signedIn.userId);
  if (!canReadGroup(signedIn, group, { access, memberBelow: below })) throw notFound("Group");
  if (!canAdminGroup(signedIn, access)) throw forbidden();
  return { actor: signedIn, group };
}
