import { OWNER, VisibilityLevel } from "@canopy/kit";
import type { common } from "@canopy/protos";

/** admin_group (GitLab's GroupPolicy): Owners of the group or an ancestor, and administrators. */
export const canAdminGroup = (actor: common.Actor, access: number) => actor.admin || access >= OWNER;

/**
 * read_group: public groups to anyone, internal ones to signed-in users who are not external, a
 * private one to administrators and to whoever has access to it or to a group below it.
 */
export const canReadGroup = (
  actor: common.Actor,
  group: { visibility_level: number },
  o: { access: number; memberBelow: boolean },
) =>
  group.visibility_level >= VisibilityLevel.PUBLIC ||
  (group.visibility_level >= VisibilityLevel.INTERNAL && actor.userId > 0 && !actor.external) ||
  actor.admin ||
  o.access > 0 ||
  o.memberBelow;
