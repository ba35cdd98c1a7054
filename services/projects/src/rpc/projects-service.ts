import type { AsyncService } from "@canopy/kit";
import type { projects } from "@canopy/protos";
import { setArchived } from "../commands/archive";
import { createProject } from "../commands/create-project";
import { deleteProjectCommand } from "../commands/delete-project";
import { starProject } from "../commands/star";
import { updateProjectCommand } from "../commands/update-project";
import type { Deps } from "../deps";
import { listProjectsFinder } from "../finders/project-lists";
import { getProject } from "../finders/projects";

/** gRPC handlers of canopy.projects.v1.ProjectsService: decode, call, encode. */
export const projectsService = (deps: Deps): AsyncService<typeof projects.ProjectsServiceService> => ({
  getProject: (req) => getProject(deps, req),
  createProject: (req) => createProject(deps, req),
  updateProject: (req) => updateProjectCommand(deps, req),
  deleteProject: (req) => deleteProjectCommand(deps, req),
  listProjects: (req) => listProjectsFinder(deps, req),
  starProject: (req) => starProject(deps, req, true),
  unstarProject: (req) => starProject(deps, req, false),
  archiveProject: (req) => setArchived(deps, req, true),
  unarchiveProject: (req) => setArchived(deps, req, false),
});
