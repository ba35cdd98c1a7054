import { apiError, grpcStatus, planFeatures } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import type { Deps } from "../deps";
import { linksOf, type LinkRow } from "../store/links";
import { findSync } from "../store/syncs";
import { groupForLinks } from "./groups";

/** The LdapGroupLink entity as the contract carries it (the gateway hides `filter` by plan). */
export const toGroupLink = (l: LinkRow): ldap.GroupLink => ({
  cn: l.cn ?? undefined,
  groupAccess: l.group_access,
  provider: l.provider,
  filter: l.filter ?? undefined,
});

/** GET /groups/:id/ldap_group_links: 404 "No linked LDAP groups found" when there are none. */
export async function listGroupLinks(
  deps: Deps,
  req: ldap.ListGroupLinksRequest,
): Promise<ldap.ListGroupLinksResponse> {
  const { group } = await groupForLinks(deps, req.actor, req.group);
  const links = await linksOf(deps.pool, group.id);
  if (!links.length) throw apiError(404, "No linked LDAP groups found", grpcStatus.NOT_FOUND);
  return { links: links.map(toGroupLink) };
}

/**
 * The links and sync state of a group, for the group entity (`ldap_group_links` when any). No
 * permission beyond the gateway having shown the group; the state fields are for administrators.
 */
export async function getGroupSyncState(
  deps: Deps,
  req: ldap.GetGroupSyncStateRequest,
): Promise<ldap.GroupSyncState> {
  const links = await linksOf(deps.pool, req.groupId);
  const sync = await findSync(deps.pool, req.groupId);
  const filterLinks = planFeatures(deps.config.CANOPY_PLAN).ldapFilterLinks;
  return {
    links: links.filter((l) => filterLinks || l.cn !== null).map(toGroupLink),
    status: sync?.status ?? "ready",
    lastSyncAt: sync?.last_sync_at ?? undefined,
    lastUpdateAt: sync?.last_update_at ?? undefined,
    lastSuccessfulUpdateAt: sync?.last_successful_update_at ?? undefined,
    error: sync?.error ?? "",
  };
}
