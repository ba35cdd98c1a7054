import { ACCESS_LEVELS, expiresAtErrors, inheritedLevelErrors, MAINTAINER, OWNER } from "@canopy/kit";

/**
 * Membership rules of GitLab's ProjectMember model and ProjectMemberPolicy, without I/O (the Member
 * model's rules of every source are the kit's gitlab/members.ts). Errors are keyed by attribute, as
 * `render_validation_error!` answers them.
 */
export type MemberErrors = Record<string, string[]>;

/**
 * Every validation of a project membership being made or changed, in the model's order:
 * `access_level` in 10..50 (projects know no minimal access), not below the user's membership of
 * the project's group or an ancestor (Member#higher_access_level_than_group), `expires_at` not in
 * the past.
 */
export function memberErrors(input: {
  accessLevel: number;
  expiresAt?: string;
  inherited?: { accessLevel: number; groupName: string };
  today: string;
}): MemberErrors {
  const errors: MemberErrors = {};
  if (!(ACCESS_LEVELS as readonly number[]).includes(input.accessLevel)) {
    errors.access_level = ["is not included in the list"];
  } else {
    const inherited = inheritedLevelErrors(input.accessLevel, input.inherited);
    if (inherited.length) errors.access_level = inherited;
  }
  const expires = expiresAtErrors(input.expiresAt, input.today);
  if (expires.length) errors.expires_at = expires;
  return errors;
}

/** admin_project_member: Maintainers and up (administrators have Owner). */
export const canAdminMembers = (callerAccess: number) => callerAccess >= MAINTAINER;

/** manage_owners: only Owners (and administrators) may grant, change or remove the Owner level. */
export const canManageOwners = (callerAccess: number) => callerAccess >= OWNER;

/**
 * ProjectMemberPolicy's update_project_member / destroy_project_member for a target membership:
 * never the holder of the personal namespace the project is in; an Owner membership only by
 * someone who manages owners; otherwise member admins — and, for removal, the member themselves.
 */
export function mayChangeMember(o: {
  callerAccess: number;
  callerId: number;
  target: { userId: number; accessLevel: number };
  personalHolderId: number | null;
  removal: boolean;
}): boolean {
  if (o.personalHolderId !== null && o.target.userId === o.personalHolderId) return false;
  if (o.target.accessLevel >= OWNER && !canManageOwners(o.callerAccess)) return false;
  return canAdminMembers(o.callerAccess) || (o.removal && o.target.userId === o.callerId);
}
