import type { AsyncService } from "@canopy/kit";
import type { projectMembers } from "@canopy/protos";
import { addMember, addMembers } from "../commands/members-add";
import { removeMember, updateMember } from "../commands/members-change";
import type { Deps } from "../deps";
import { getMember, listMembers, userHighestProjectAccessLevel } from "../finders/members";

/** gRPC handlers of canopy.projects.v1.ProjectMembersService. */
export const projectMembersService = (
  deps: Deps,
): AsyncService<typeof projectMembers.ProjectMembersServiceService> => ({
  listProjectMembers: (req) => listMembers(deps, req),
  getProjectMember: (req) => getMember(deps, req),
  addProjectMember: (req) => addMember(deps, req),
  addProjectMembers: (req) => addMembers(deps, req),
  updateProjectMember: (req) => updateMember(deps, req),
  removeProjectMember: (req) => removeMember(deps, req),
  getUserHighestProjectAccessLevel: (req) => userHighestProjectAccessLevel(deps, req),
});
