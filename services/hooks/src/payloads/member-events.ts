/**
 * Group member events (lib/gitlab/hook_data/group_member_builder.rb plus EE's `group_plan`):
 * `user_add_to_group` on create, `user_update_for_group` only when the access level or the expiry
 * changed, `user_remove_from_group` on destroy, and the access-request pair (17.5+).
 */
import { ACCESS_LEVEL_NAMES } from "@canopy/kit";
import { dayXmlschema, xmlschema } from "./dates";
import { built } from "./triggers";
import type { BuiltHookPayload, HookGroup, HookMembership, HookUser } from "./types";

export const MEMBER_EVENT_NAMES = [
  "user_add_to_group",
  "user_update_for_group",
  "user_remove_from_group",
  "user_access_request_to_group",
  "user_access_request_denied_for_group",
] as const;

export type MemberEventName = (typeof MEMBER_EVENT_NAMES)[number];

export interface MemberPayload {
  created_at: string;
  updated_at: string;
  group_name: string;
  group_path: string;
  group_id: number;
  user_username: string;
  user_name: string;
  user_email: string;
  user_id: number;
  group_access: string;
  group_plan: string | null;
  expires_at: string | null;
  event_name: MemberEventName;
}

// Planner (15) came after kit's list of role names.
const PLANNER = 15;

/** `group_access`: the custom role's name, else the access level's (Member#human_access). */
export function humanAccess(membership: HookMembership): string {
  if (membership.memberRoleName) return membership.memberRoleName;
  if (membership.accessLevel === PLANNER) return "Planner";
  return ACCESS_LEVEL_NAMES[membership.accessLevel] ?? String(membership.accessLevel);
}

/** Whether an update is worth a `user_update_for_group` (GitLab fires only on these changes). */
export function memberUpdateIsReported(before: HookMembership, after: HookMembership): boolean {
  return before.accessLevel !== after.accessLevel || before.expiresAt !== after.expiresAt;
}

export function buildMemberPayload(
  eventName: MemberEventName,
  group: HookGroup,
  user: HookUser,
  membership: HookMembership,
): BuiltHookPayload<MemberPayload> {
  return built("member_hooks", {
    created_at: xmlschema(membership.createdAt),
    updated_at: xmlschema(membership.updatedAt),
    group_name: group.name,
    group_path: group.path,
    group_id: group.id,
    user_username: user.username,
    user_name: user.name,
    user_email: user.email,
    user_id: user.id,
    group_access: humanAccess(membership),
    group_plan: group.planName ?? null,
    expires_at: membership.expiresAt ? dayXmlschema(membership.expiresAt) : null,
    event_name: eventName,
  });
}
