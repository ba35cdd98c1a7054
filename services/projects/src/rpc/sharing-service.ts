import type { AsyncService } from "@canopy/kit";
import type { projectSharing } from "@canopy/protos";
import { shareProject, unshareProject } from "../commands/sharing";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.projects.v1.ProjectSharingService. */
export const projectSharingService = (
  deps: Deps,
): AsyncService<typeof projectSharing.ProjectSharingServiceService> => ({
  shareProject: (req) => shareProject(deps, req),
  unshareProject: (req) => unshareProject(deps, req),
});
