import type { AsyncService } from "@canopy/kit";
import type { groups } from "@canopy/protos";
import { createGroup } from "../commands/create-group";
import { updateGroup } from "../commands/update-group";
import type { Deps } from "../deps";
import { listGroups } from "../finders/group-lists";
import { getGroup } from "../finders/groups";

/** gRPC handlers of canopy.groups.v1.GroupsService: decode, call, encode. */
export const groupsService = (deps: Deps): AsyncService<typeof groups.GroupsServiceService> => ({
  getGroup: (req) => getGroup(deps, req),
  createGroup: (req) => createGroup(deps, req),
  updateGroup: (req) => updateGroup(deps, req),
  listGroups: (req) => listGroups(deps, req),
});
