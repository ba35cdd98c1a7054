import type { AsyncService } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import { createGroupLink, deleteGroupLink } from "../commands/links";
import { requestGroupSync } from "../commands/request-sync";
import type { Deps } from "../deps";
import { searchDirectoryGroups } from "../finders/directory-groups";
import { getGroupSyncState, listGroupLinks, listLinksOfGroups } from "../finders/links";

/** gRPC handlers of canopy.ldap.v1.LdapService. */
export const ldapService = (deps: Deps): AsyncService<typeof ldap.LdapServiceService> => ({
  listGroupLinks: (req) => listGroupLinks(deps, req),
  createGroupLink: (req) => createGroupLink(deps, req),
  deleteGroupLink: (req) => deleteGroupLink(deps, req),
  searchDirectoryGroups: (req) => searchDirectoryGroups(deps, req),
  requestGroupSync: (req) => requestGroupSync(deps, req),
  getGroupSyncState: (req) => getGroupSyncState(deps, req),
  listLinksOfGroups: (req) => listLinksOfGroups(deps, req),
});
