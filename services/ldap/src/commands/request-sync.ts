import { notFound, planFeatures } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import type { Deps } from "../deps";
import { groupForSync } from "../finders/groups";
import { markPending } from "../store/syncs";

/** GitLab's `group_sync_enabled?`: LDAP configured and the plan licenses group sync (premium). */
export const groupSyncEnabled = (deps: Deps) =>
  deps.servers.length > 0 && planFeatures(deps.config.CANOPY_PLAN).ldapGroupSync;

/**
 * POST /groups/:id/ldap_sync (ee/lib/ee/api/groups.rb), in GitLab's order: group sync enabled
 * (a bare 404), the group visible (404 "Group Not Found"), Owner or administrator (403). The group
 * moves to pending when it was ready or failed and a worker is woken; a sync already pending or
 * running is left alone. The answer is the same either way (202).
 */
export async function requestGroupSync(
  deps: Deps,
  req: ldap.RequestGroupSyncRequest,
): Promise<ldap.RequestGroupSyncResponse> {
  if (!groupSyncEnabled(deps)) throw notFound();
  const { group } = await groupForSync(deps, req.actor, req.group);
  const queued = await markPending(deps.pool, group.id);
  if (queued) deps.kickSync();
  return { queued };
}
