import { planFeatures, type Plan } from "@canopy/kit";
import { auth } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso, orNull } from "./time";

/** GitLab's avatar_url: absolute, on the external URL; null without an avatar (Canopy has no Gravatar). */
export const userAvatarUrl = (u: Pick<auth.User, "avatarPath">, externalUrl: string): string | null =>
  u.avatarPath ? externalUrl.replace(/\/+$/, "") + u.avatarPath : null;

/** GitLab's name of a user state (User#state). */
export function userStateName(state: auth.UserState): z.infer<typeof schemas.UserBasic>["state"] {
  switch (state) {
    case auth.UserState.USER_STATE_ACTIVE:
      return "active";
    case auth.UserState.USER_STATE_LDAP_BLOCKED:
      return "ldap_blocked";
    case auth.UserState.USER_STATE_BLOCKED_PENDING_APPROVAL:
      return "blocked_pending_approval";
    case auth.UserState.USER_STATE_BANNED:
      return "banned";
    case auth.UserState.USER_STATE_DEACTIVATED:
      return "deactivated";
    default:
      return "blocked";
  }
}

/**
 * GitLab's user entities, from least to most detail (lib/api/entities/user*.rb). Which one a caller
 * gets is chosen by the route: others see `user`, yourself `userPublic`, administrators `userWithAdmin`
 * (and, for one user, `userDetailsWithAdmin`).
 */
export function userBasic(u: auth.User, externalUrl: string): z.infer<typeof schemas.UserBasic> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: userStateName(u.state),
    locked: false,
    avatar_url: userAvatarUrl(u, externalUrl),
    web_url: `${externalUrl.replace(/\/+$/, "")}/${encodeURIComponent(u.username)}`,
  };
}

/** Who reads a profile: the caller's user id (0 when anonymous) and whether they are an administrator. */
export interface ProfileReader {
  userId: number;
  admin: boolean;
}

/**
 * GitLab's User entity. A private profile keeps its creation time and follow counts from everyone
 * but its user and administrators (GitLab's :read_user_profile); `is_followed` is shown to a signed-in
 * reader who may read the profile (always false: Canopy has no follows).
 */
export function user(u: auth.User, externalUrl: string, reader: ProfileReader): z.infer<typeof schemas.User> {
  const readable = !u.privateProfile || reader.admin || reader.userId === u.id;
  return {
    ...userBasic(u, externalUrl),
    ...(readable ? { created_at: iso(u.createdAt) } : {}),
    bio: u.bio,
    location: u.location,
    public_email: u.publicEmail || null,
    skype: "",
    linkedin: "",
    twitter: "",
    discord: "",
    website_url: u.websiteUrl,
    organization: u.organization,
    job_title: u.jobTitle,
    pronouns: null,
    bot: false,
    work_information: null,
    ...(readable ? { followers: 0, following: 0 } : {}),
    ...(readable && reader.userId ? { is_followed: false } : {}),
    local_time: null,
  };
}

export function userPublic(u: auth.User, externalUrl: string): z.infer<typeof schemas.UserPublic> {
  return {
    // Their own profile, or an administrator's view of it: readable.
    ...user(u, externalUrl, { userId: u.id, admin: true }),
    last_sign_in_at: iso(u.lastSignInAt),
    confirmed_at: iso(u.confirmedAt),
    last_activity_on: orNull(u.lastActivityOn),
    email: u.email,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: u.projectsLimit,
    // Devise's trackable: the latest sign-in; last_sign_in_at is the one before it.
    current_sign_in_at: iso(u.currentSignInAt),
    identities: u.identities.map((i) => ({
      provider: i.provider,
      extern_uid: i.externUid,
      saml_provider_id: null,
    })),
    can_create_group: u.canCreateGroup,
    can_create_project: u.projectsLimit > 0,
    two_factor_enabled: u.twoFactorEnabled,
    external: u.external,
    private_profile: u.privateProfile,
    commit_email: u.email,
  };
}

/**
 * What administrators see. `plan` decides EE's licensed fields (ee/lib/ee/api/entities/user_with_admin.rb):
 * is_auditor (auditor users) and provisioned_by_group_id (group SAML); Canopy has neither kind of user.
 */
export function userWithAdmin(
  u: auth.User,
  externalUrl: string,
  plan: Plan,
): z.infer<typeof schemas.UserWithAdmin> {
  const features = planFeatures(plan);
  return {
    ...userPublic(u, externalUrl),
    is_admin: u.admin,
    note: u.note || null,
    // The personal namespace is the groups service's; auth does not know its id.
    namespace_id: null,
    // Canopy does not record which administrator created a user.
    created_by: null,
    email_reset_offered_at: null,
    // EE (every plan): an active human user takes a seat.
    using_license_seat: u.state === auth.UserState.USER_STATE_ACTIVE,
    ...(features.auditorUsers ? { is_auditor: false } : {}),
    ...(features.groupSaml ? { provisioned_by_group_id: null } : {}),
  };
}

/** GitLab's highest_role: an access level, or 0 (no membership). */
export type HighestRole = z.infer<typeof schemas.UserDetailsWithAdmin>["highest_role"];

/**
 * GET /users/:id for administrators (lib/api/entities/user_details_with_admin.rb): UserWithAdmin with
 * the user's highest role and Devise's trackable details, which the auth service fills for
 * administrators only. EE's `plan` and `trial` (GitLab.com subscriptions) are not shown.
 */
export function userDetailsWithAdmin(
  u: auth.User,
  externalUrl: string,
  plan: Plan,
  highestRole: HighestRole,
): z.infer<typeof schemas.UserDetailsWithAdmin> {
  return {
    ...userWithAdmin(u, externalUrl, plan),
    highest_role: highestRole,
    current_sign_in_ip: u.currentSignInIp || null,
    last_sign_in_ip: u.lastSignInIp || null,
    sign_in_count: u.signInCount,
  };
}
