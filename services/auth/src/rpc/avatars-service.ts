import type { AsyncService } from "@canopy/kit";
import type { userAvatars } from "@canopy/protos";
import { getUserAvatar, setOwnAvatar } from "../commands/avatars";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.UserAvatarsService. */
export const userAvatarsService = (
  deps: Deps,
): AsyncService<typeof userAvatars.UserAvatarsServiceService> => ({
  getUserAvatar: (req) => getUserAvatar(deps, req),
  setOwnAvatar: (req) => setOwnAvatar(deps, req.actor, req),
});
