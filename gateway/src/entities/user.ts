import { auth } from "@canopy/protos";
import { iso } from "./time";

/**
 * GitLab's user entities, from least to most detail (lib/api/entities/user*.rb). Which one a caller
 * gets is chosen by the route: others see `user`, yourself `userPublic`, administrators `userWithAdmin`.
 */
export function userBasic(u: auth.User, externalUrl: string) {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state === auth.UserState.USER_STATE_BLOCKED ? "blocked" : "active",
    locked: false,
    avatar_url: null,
    web_url: `${externalUrl.replace(/\/+$/, "")}/${encodeURIComponent(u.username)}`,
  };
}

export function user(u: auth.User, externalUrl: string) {
  return {
    ...userBasic(u, externalUrl),
    created_at: iso(u.createdAt),
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
    followers: 0,
    following: 0,
    local_time: null,
  };
}

export function userPublic(u: auth.User, externalUrl: string) {
  return {
    ...user(u, externalUrl),
    last_sign_in_at: iso(u.lastSignInAt),
    confirmed_at: iso(u.confirmedAt),
    last_activity_on: null,
    email: u.email,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: u.projectsLimit,
    current_sign_in_at: iso(u.lastSignInAt),
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

export function userWithAdmin(u: auth.User, externalUrl: string) {
  return {
    ...userPublic(u, externalUrl),
    is_admin: u.admin,
    note: u.note || null,
    namespace_id: null,
    created_by: null,
  };
}
