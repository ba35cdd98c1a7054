import { auth, type common } from "@canopy/protos";
import type { HighestRole } from "../entities/user";
import type { RouteDeps } from "./context";

/**
 * GitLab's highest_role (its user_highest_roles table): the highest access level among the user's
 * group and project memberships, 0 without any. Group memberships are the groups service's and
 * project memberships the projects service's: both are asked at once. GitLab keeps no highest role
 * for a user who is not active (UpdateHighestRoleWorker drops it when the state changes, and the
 * entity shows 0), so for them nobody is asked.
 */
export async function highestRole(
  deps: RouteDeps,
  actor: common.Actor,
  user: auth.User,
): Promise<HighestRole> {
  if (user.state !== auth.UserState.USER_STATE_ACTIVE) return 0;
  const [inGroups, inProjects] = await Promise.all([
    deps.groupMembers.getUserHighestAccessLevel({ actor, userId: user.id }),
    deps.projectMembers.getUserHighestProjectAccessLevel({ actor, userId: user.id }),
  ]);
  // Both hold only access levels (5..50); the response check would catch anything else.
  return Math.max(inGroups.accessLevel, inProjects.accessLevel) as HighestRole;
}
