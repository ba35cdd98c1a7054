import type { AsyncService } from "@canopy/kit";
import type { projectLifecycle } from "@canopy/protos";
import { restoreProject } from "../commands/restore-project";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.projects.v1.ProjectLifecycleService: decode, call, encode. */
export const projectLifecycleService = (
  deps: Deps,
): AsyncService<typeof projectLifecycle.ProjectLifecycleServiceService> => ({
  restoreProject: (req) => restoreProject(deps, req),
});
