import type { AsyncService } from "@canopy/kit";
import type { userActivity } from "@canopy/protos";
import * as commands from "../commands/user-activity";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.UserActivityService. */
export const userActivityService = (
  deps: Deps,
): AsyncService<typeof userActivity.UserActivityServiceService> => ({
  recordUserActivity: (req) => commands.recordUserActivity(deps, req),
  listUserActivities: (req) => commands.listUserActivities(deps, req),
});
