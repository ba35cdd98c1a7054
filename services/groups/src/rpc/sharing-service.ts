import type { AsyncService } from "@canopy/kit";
import type { groupSharing } from "@canopy/protos";
import { shareGroup, unshareGroup } from "../commands/sharing";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.groups.v1.GroupSharingService. */
export const sharingService = (deps: Deps): AsyncService<typeof groupSharing.GroupSharingServiceService> => ({
  shareGroup: (req) => shareGroup(deps, req),
  unshareGroup: (req) => unshareGroup(deps, req),
});
