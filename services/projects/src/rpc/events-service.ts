import type { AsyncService } from "@canopy/kit";
import type { projectActivity } from "@canopy/protos";
import type { Deps } from "../deps";
import { listActivity } from "../finders/events";

/** gRPC handlers of canopy.projects.v1.ProjectEventsService. */
export const projectEventsService = (
  deps: Deps,
): AsyncService<typeof projectActivity.ProjectEventsServiceService> => ({
  listEvents: (req) => listActivity(deps, req),
});
