import type { AsyncService } from "@canopy/kit";
import type { namespaces } from "@canopy/protos";
import type { Deps } from "../deps";
import { getNamespace, getNamespaceHint, listNamespaces } from "../finders/namespaces";

/** gRPC handlers of canopy.groups.v1.NamespacesService: decode, call, encode. */
export const namespacesService = (deps: Deps): AsyncService<typeof namespaces.NamespacesServiceService> => ({
  listNamespaces: (req) => listNamespaces(deps, req),
  getNamespace: (req) => getNamespace(deps, req),
  getNamespaceHint: (req) => getNamespaceHint(deps, req),
});
