import { apiError, forbidden, notFound, requireSignedIn } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import type { Deps } from "../deps";
import { DirectoryUnavailable } from "../directory/directory";

/** GitLab answers at most 20 groups (`Adapter#groups("#{search}*", 20)`). */
const LIMIT = 20;

/**
 * GET /ldap/groups and GET /ldap/:provider/groups (ee/lib/api/ldap.rb): signed in (401), an
 * administrator or, with the setting `allow_group_owners_to_manage_ldap` on, any user (403), then up
 * to 20 cns under the provider's group_base that start with the search term (escaped by the
 * directory client, `*` appended). Without LDAP, or for a provider not configured, a bare 404 (GitLab
 * fails there with a 500); a directory that does not answer, a 503.
 */
export async function searchDirectoryGroups(
  deps: Deps,
  req: ldap.SearchDirectoryGroupsRequest,
): Promise<ldap.SearchDirectoryGroupsResponse> {
  const actor = requireSignedIn(req.actor);
  if (!actor.admin && !deps.settings.current().allowGroupOwnersToManageLdap) throw forbidden();
  const server = req.provider ? deps.servers.find((s) => s.provider === req.provider) : deps.servers[0];
  if (!server) throw notFound();
  const directory = deps.openDirectory();
  try {
    return { cns: await directory.searchGroupCns(server, req.search, LIMIT) };
  } catch (err) {
    if (err instanceof DirectoryUnavailable)
      throw apiError(503, `503 Service Unavailable - LDAP server ${server.provider} is not answering`);
    throw err;
  } finally {
    await directory.close();
  }
}
