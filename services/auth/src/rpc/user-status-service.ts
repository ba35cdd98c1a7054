import type { AsyncService } from "@canopy/kit";
import type { userStatus } from "@canopy/protos";
import * as commands from "../commands/user-status";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.UserStatusService. */
export const userStatusService = (deps: Deps): AsyncService<typeof userStatus.UserStatusServiceService> => ({
  getUserStatus: (req) => commands.getUserStatus(deps, req),
  setUserStatus: (req) => commands.setUserStatus(deps, req),
});
