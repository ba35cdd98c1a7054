import type { AsyncService } from "@canopy/kit";
import type { groupAvatars } from "@canopy/protos";
import type { Deps } from "../deps";
import { getAvatar } from "../finders/avatars";

/** gRPC handlers of canopy.groups.v1.GroupAvatarsService. */
export const avatarsService = (deps: Deps): AsyncService<typeof groupAvatars.GroupAvatarsServiceService> => ({
  getAvatar: (req) => getAvatar(deps, req),
});
