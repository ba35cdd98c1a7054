import type { AsyncService } from "@canopy/kit";
import type { userState } from "@canopy/protos";
import { changeUserState } from "../commands/user-state";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.UserStateService. */
export const userStateService = (deps: Deps): AsyncService<typeof userState.UserStateServiceService> => ({
  changeUserState: (req) => changeUserState(deps, req),
});
