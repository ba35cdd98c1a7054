import { forbidden, recordEvent, requireSignedIn, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, type common, type groupEvents, type groups } from "@canopy/protos";
import { canAdminMembers } from "../domain/members";
import type { Deps } from "../deps";
import { resolveGroup, type VisibleGroup } from "../finders/groups";
import type { MemberRow } from "../store/members";
import { lockTreesOf, type NamespaceRow } from "../store/namespaces";

/** What member writes share: the signed-in caller (401) and the group they may see (404). */
export async function groupForMemberWrite(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
): Promise<{ actor: common.Actor; group: VisibleGroup }> {
  const signedIn = requireSignedIn(actor);
  return { actor: signedIn, group: await resolveGroup(deps, signedIn, ref) };
}

/** admin_group_member (Owners and administrators), else 403. */
export function requireMemberAdmin(group: VisibleGroup): void {
  if (!canAdminMembers(group.access)) throw forbidden();
}

/**
 * Locks the tree the group is in (its root row), and reads the group again under the lock: the
 * last-owner rule counts Owners of the group and its ancestors, which a concurrent change in the
 * same tree (another removal, a transfer) must not invalidate between the count and the write.
 */
export async function lockTreeOfGroup(tx: PoolClient, groupId: number): Promise<NamespaceRow | undefined> {
  return (await lockTreesOf(tx, [groupId]))[0];
}

/** The event payload of a membership row. */
export const membershipOf = (m: MemberRow): groupEvents.Membership => ({
  groupId: m.namespace_id,
  userId: m.user_id,
  accessLevel: m.access_level,
  expiresAt: m.expires_at ?? "",
  createdById: m.created_by_id ?? 0,
});

export async function recordMemberRemoved(
  tx: PoolClient,
  m: MemberRow,
  actor: common.Actor,
  withSubresources = false,
) {
  await recordEvent(tx, GROUPS_EVENTS.memberRemoved, { member: membershipOf(m), withSubresources }, actor);
}
