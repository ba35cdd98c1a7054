import type { AsyncService } from "@canopy/kit";
import type { groupMembers } from "@canopy/protos";
import { addMember, addMembers } from "../commands/members-add";
import { removeMember } from "../commands/members-remove";
import { updateMember } from "../commands/members-update";
import type { Deps } from "../deps";
import { getMember, listMembers, userHighestAccessLevel } from "../finders/members";

/** gRPC handlers of canopy.groups.v1.GroupMembersService: decode, call, encode. */
export const membersService = (deps: Deps): AsyncService<typeof groupMembers.GroupMembersServiceService> => ({
  listMembers: (req) => listMembers(deps, req),
  getMember: (req) => getMember(deps, req),
  addMember: (req) => addMember(deps, req),
  addMembers: (req) => addMembers(deps, req),
  updateMember: (req) => updateMember(deps, req),
  removeMember: (req) => removeMember(deps, req),
  getUserHighestAccessLevel: (req) => userHighestAccessLevel(deps, req),
});
