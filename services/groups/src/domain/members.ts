import {
  ACCESS_LEVELS,
  expiresAtErrors,
  inheritedLevelErrors,
  MINIMAL_ACCESS,
  NO_ACCESS,
  OWNER,
  VisibilityLevel,
} from "@canopy/kit";

/**
 * Membership rules of GitLab's GroupMember model and GroupMemberPolicy, without I/O (the Member
 * model's rules of every source are the kit's gitlab/members.ts). Errors are keyed by attribute, as
 * `render_validation_error!` answers them.
 */
export type MemberErrors = Record<string, string[]>;

const NOT_IN_LIST = "is not included in the list";

/**
 * `access_level` inclusion (EE GroupMember#access_level_inclusion): 10..50 everywhere; 5 (minimal
 * access) only where the plan has it and only on a top-level group. CE knows no 5 at all, so on the
 * free plan it is just "not in the list".
 */
export function accessLevelErrors(level: number, o: { minimalAccess: boolean; topLevel: boolean }): string[] {
  if ((ACCESS_LEVELS as readonly number[]).includes(level)) return [];
  if (level !== MINIMAL_ACCESS || !o.minimalAccess) return [NOT_IN_LIST];
  return o.topLevel ? [] : [NOT_IN_LIST, "supported on top level groups only"];
}

/** Every validation of a membership being made or changed, in the model's order. */
export function memberErrors(input: {
  accessLevel: number;
  expiresAt?: string;
  minimalAccess: boolean;
  topLevel: boolean;
  inherited?: { accessLevel: number; groupName: string };
  today: string;
}): MemberErrors {
  const errors: MemberErrors = {};
  const level = [
    ...accessLevelErrors(input.accessLevel, input),
    ...inheritedLevelErrors(input.accessLevel, input.inherited),
  ];
  if (level.length) errors.access_level = level;
  const expires = expiresAtErrors(input.expiresAt, input.today);
  if (expires.length) errors.expires_at = expires;
  return errors;
}

/**
 * read_group_member: whoever may read the group, except on a private group where the caller's
 * access is "no access" (they see it only through something below it).
 */
export const canReadMembers = (visibilityLevel: number, callerAccess: number) =>
  !(visibilityLevel === VisibilityLevel.PRIVATE && callerAccess === NO_ACCESS);

/** admin_group_member: Owners (administrators count as Owners). */
export const canAdminMembers = (callerAccess: number) => callerAccess >= OWNER;

/** Only an Owner may make someone an Owner (later GitLab; Owners alone manage group members). */
export const mayGrant = (callerAccess: number, level: number) => level < OWNER || callerAccess >= OWNER;

/**
 * GroupMemberPolicy's last-owner rule: an Owner membership may be neither changed nor removed when no
 * other Owner membership (of an active user, not expired) exists in the group or its ancestors.
 */
export const isLastOwner = (member: { accessLevel: number }, otherOwners: number) =>
  member.accessLevel === OWNER && otherOwners === 0;
