import { apiError, badParameter, grpcStatus, planFeatures } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import type { Deps } from "../deps";
import { linksOf, linksOfGroups, type LinkRow } from "../store/links";
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

/** Filter links are shown only where the plan has them (GitLab's licensed `ldap_group_sync_filter`). */
const shownLinks = (deps: Deps, links: LinkRow[]) => {
  const filterLinks = planFeatures(deps.config.CANOPY_PLAN).ldapFilterLinks;
  return links.filter((l) => filterLinks || l.cn !== null).map(toGroupLink);
};

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
  return {
    links: shownLinks(deps, links),
    status: sync?.status ?? "ready",
    lastSyncAt: sync?.last_sync_at ?? undefined,
    lastUpdateAt: sync?.last_update_at ?? undefined,
    lastSuccessfulUpdateAt: sync?.last_successful_update_at ?? undefined,
    error: sync?.error ?? "",
  };
}

/** The most groups one ListLinksOfGroups asks about: a list page (per_page is at most 100). */
const MOST_GROUPS = 100;

/** `ldap_group_links` of a list page's groups, in one read; like getGroupSyncState, no permission beyond the gateway's. */
export async function listLinksOfGroups(
  deps: Deps,
  req: ldap.ListLinksOfGroupsRequest,
): Promise<ldap.ListLinksOfGroupsResponse> {
  if (req.groupIds.length > MOST_GROUPS) throw badParameter(`group_ids has more than ${MOST_GROUPS} groups`);
  const byGroup = new Map<number, LinkRow[]>();
  for (const link of await linksOfGroups(deps.pool, req.groupIds))
    byGroup.set(link.group_id, [...(byGroup.get(link.group_id) ?? []), link]);
  return {
    groups: [...byGroup]
      .map(([groupId, links]) => ({ groupId, links: shownLinks(deps, links) }))
      .filter((g) => g.links.length),
  };
}
