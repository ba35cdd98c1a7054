import { forbidden, unauthenticated } from "@canopy/kit";
import type { common, hooks } from "@canopy/protos";

/** GitLab's Owner access level. */
export const OWNER = 50;

/**
 * read_web_hook and admin_web_hook (ee/app/policies/ee/group_policy.rb): both belong to the group's
 * Owners (admin_group) and to administrators; anyone else is refused. The group's visibility has
 * been checked by then (the gateway resolved it with the groups service, which answers 404 for a
 * group the caller cannot see), and `scope.accessLevel` is the caller's effective access it answered.
 */
export function authorizeHooks(actor: common.Actor | undefined, scope: hooks.GroupScope | undefined): number {
  if (!actor?.userId) throw unauthenticated();
  if (!scope?.groupId) throw forbidden();
  if (!actor.admin && scope.accessLevel < OWNER) throw forbidden();
  return scope.groupId;
}
