import { lowestVisibleLevel } from "@canopy/kit";
import type { common, groups } from "@canopy/protos";
import type { Deps } from "../deps";
import { findSharedWith } from "../store/group-links";

/** The detail's `shared_with_groups`: only links whose invited group the caller can see. */
export async function sharedWithGroups(
  deps: Deps,
  actor: common.Actor | undefined,
  groupId: number,
): Promise<groups.SharedWithGroup[]> {
  const viewer = {
    userId: actor?.userId ?? 0,
    admin: Boolean(actor?.admin),
    external: Boolean(actor?.external),
  };
  const rows = await findSharedWith(deps.pool, groupId, {
    ...viewer,
    lowestVisibleLevel: lowestVisibleLevel(viewer),
  });
  return rows.map((r) => ({
    groupId: r.group_id,
    groupName: r.group_name,
    groupFullPath: r.group_full_path,
    groupAccessLevel: r.group_access_level,
    expiresAt: r.expires_at ?? "",
  }));
}
