import type { AsyncService } from "@canopy/kit";
import type { groupProjects } from "@canopy/protos";
import { transferProject } from "../commands/transfer-project";
import type { Deps } from "../deps";
import { groupDetailProjects, listGroupProjects } from "../finders/group-projects";

/** gRPC handlers of canopy.projects.v1.GroupProjectsService: decode, call, encode. */
export const groupProjectsService = (
  deps: Deps,
): AsyncService<typeof groupProjects.GroupProjectsServiceService> => ({
  listGroupProjects: (req) => listGroupProjects(deps, req),
  groupDetailProjects: (req) => groupDetailProjects(deps, req),
  transferProject: (req) => transferProject(deps, req),
});
