import type { common } from "@canopy/protos";
import { ldapGroupLinkEntity } from "../entities/ldap-group-link";
import type { RouteDeps } from "./context";

export type LdapLinkEntity = ReturnType<typeof ldapGroupLinkEntity>;

/**
 * The group entity's `ldap_group_links` (GitLab's EE Group entity: the links, only when the group
 * has any). Asked of the ldap service only when LDAP is configured: without it GitLab has no links
 * to show, and every other deployment pays nothing for the key. A cached answer holding links stays
 * true: links change only through the API (a write drops every gateway's answers), and a sync
 * changes memberships through the groups service, whose events drop them too (server.ts).
 */
export async function detailLdapLinks(
  deps: RouteDeps,
  actor: common.Actor,
  groupId: number,
): Promise<LdapLinkEntity[] | undefined> {
  if (!deps.config.CANOPY_LDAP_SERVERS.length) return undefined;
  const state = await deps.ldap.getGroupSyncState({ actor, groupId });
  if (!state.links.length) return undefined;
  return state.links.map((l) => ldapGroupLinkEntity(l, deps.config.CANOPY_PLAN));
}

/**
 * `ldap_group_links` of each group of a list page: GitLab exposes them on the Group entity, which
 * its lists use too (ee/lib/ee/api/entities/group.rb), not only on the detail. One call for the
 * page, and none without LDAP.
 */
export async function listLdapLinks(
  deps: RouteDeps,
  actor: common.Actor,
  groupIds: number[],
): Promise<Map<number, LdapLinkEntity[]>> {
  if (!deps.config.CANOPY_LDAP_SERVERS.length || !groupIds.length) return new Map();
  const { groups } = await deps.ldap.listLinksOfGroups({ actor, groupIds });
  return new Map(
    groups.map((g) => [g.groupId, g.links.map((l) => ldapGroupLinkEntity(l, deps.config.CANOPY_PLAN))]),
  );
}
