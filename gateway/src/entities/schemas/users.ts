import { z } from "zod";
import { CustomAttribute, entity, integer, timestamp, url, userState, day } from "./registry";

/** GitLab's user entities (lib/api/entities/user*.rb), from least to most detail. */

const userBasicShape = {
  id: integer,
  username: z.string(),
  name: z.string(),
  state: userState,
  locked: z.boolean(),
  avatar_url: url.nullable(),
  web_url: url,
};
export const UserBasic = entity(
  "UserBasic",
  "A user as others see them in lists and as members.",
  z.object(userBasicShape),
);

const userShape = {
  ...userBasicShape,
  // Left out of a private profile for others (GitLab's :read_user_profile).
  created_at: timestamp.nullable().optional(),
  bio: z.string(),
  location: z.string(),
  public_email: z.string().nullable(),
  skype: z.string(),
  linkedin: z.string(),
  twitter: z.string(),
  discord: z.string(),
  website_url: z.string(),
  organization: z.string(),
  job_title: z.string(),
  pronouns: z.string().nullable(),
  bot: z.boolean(),
  work_information: z.string().nullable(),
  followers: integer.optional(),
  following: integer.optional(),
  // For signed-in readers of the profile.
  is_followed: z.boolean().optional(),
  local_time: z.string().nullable(),
};
export const User = entity("User", "A user's public profile (GET /users/:id).", z.object(userShape));

const userPublicShape = {
  ...userShape,
  last_sign_in_at: timestamp.nullable(),
  confirmed_at: timestamp.nullable(),
  last_activity_on: day.nullable(),
  email: z.string(),
  theme_id: integer,
  color_scheme_id: integer,
  projects_limit: integer,
  current_sign_in_at: timestamp.nullable(),
  identities: z.array(
    z.object({ provider: z.string(), extern_uid: z.string(), saml_provider_id: integer.nullable() }),
  ),
  can_create_group: z.boolean(),
  can_create_project: z.boolean(),
  two_factor_enabled: z.boolean(),
  external: z.boolean(),
  private_profile: z.boolean(),
  commit_email: z.string(),
};
export const UserPublic = entity(
  "UserPublic",
  "The signed-in user as GET /user shows them to themselves.",
  z.object(userPublicShape),
);

const userWithAdminShape = {
  ...userPublicShape,
  is_admin: z.boolean(),
  note: z.string().nullable(),
  namespace_id: integer.nullable(),
  created_by: UserBasic.nullable(),
  email_reset_offered_at: timestamp.nullable(),
  using_license_seat: z.boolean(),
  // Premium and Ultimate only.
  is_auditor: z.boolean().optional(),
  provisioned_by_group_id: integer.nullable().optional(),
  /** Asked for by an administrator (`with_custom_attributes`). */
  custom_attributes: z.array(CustomAttribute).optional(),
};
export const UserWithAdmin = entity(
  "UserWithAdmin",
  "A user as administrators see them.",
  z.object(userWithAdminShape),
);

export const UserDetailsWithAdmin = entity(
  "UserDetailsWithAdmin",
  "One user as an administrator sees them (GET /users/:id): with sign-in details and highest role.",
  z.object({
    ...userWithAdminShape,
    /** The highest access level of the user's group and project memberships; 0 without any. */
    highest_role: z.literal([0, 5, 10, 20, 30, 40, 50]),
    current_sign_in_ip: z.string().nullable(),
    last_sign_in_ip: z.string().nullable(),
    sign_in_count: integer,
  }),
);

/** GitLab's Entities::Avatar (PUT /user/avatar). */
export const Avatar = entity(
  "Avatar",
  "The current user's avatar URL.",
  z.object({ avatar_url: url.nullable() }),
);

const personalAccessTokenShape = {
  id: integer,
  name: z.string(),
  revoked: z.boolean(),
  created_at: timestamp.nullable(),
  description: z.string().nullable(),
  scopes: z.array(z.string()),
  user_id: integer,
  last_used_at: timestamp.nullable(),
  active: z.boolean(),
  expires_at: day.nullable(),
};
export const PersonalAccessToken = entity(
  "PersonalAccessToken",
  "A personal access token, without its secret.",
  z.object(personalAccessTokenShape),
);
export const PersonalAccessTokenWithToken = entity(
  "PersonalAccessTokenWithToken",
  "A personal access token as created: the only time its secret is shown.",
  z.object({ ...personalAccessTokenShape, token: z.string() }),
);

export const ImpersonationToken = entity(
  "ImpersonationToken",
  "A token an administrator made to act as a user, without its secret.",
  z.object({ ...personalAccessTokenShape, impersonation: z.boolean() }),
);
export const ImpersonationTokenWithToken = entity(
  "ImpersonationTokenWithToken",
  "An impersonation token as created: the only time its secret is shown.",
  z.object({ ...personalAccessTokenShape, impersonation: z.boolean(), token: z.string() }),
);

export const UserStatus = entity(
  "UserStatus",
  "A user's status; every field null (message_html empty) when the user has none or it has cleared.",
  z.object({
    emoji: z.string().nullable(),
    message: z.string().nullable(),
    availability: z.enum(["not_set", "busy"]).nullable(),
    message_html: z.string(),
    clear_status_at: timestamp.nullable(),
  }),
);

export const UserActivity = entity(
  "UserActivity",
  "The day a user was last active (`last_activity_at` repeats it, as GitLab does).",
  z.object({ username: z.string(), last_activity_on: day, last_activity_at: day }),
);

export const Application = entity(
  "Application",
  "An instance-wide OAuth application; `secret` only on creation and renewal.",
  z.object({
    id: integer,
    application_id: z.string(),
    application_name: z.string(),
    callback_url: z.string(),
    confidential: z.boolean(),
    scopes: z.array(z.string()),
    secret: z.string().optional(),
  }),
);

export const ApplicationSettings = entity(
  "ApplicationSettings",
  "The instance settings Canopy keeps, with GitLab's legacy names beside the current ones.",
  z.object({
    id: z.literal(1),
    created_at: timestamp.nullable(),
    updated_at: timestamp.nullable(),
    allow_local_requests_from_web_hooks_and_services: z.boolean(),
    outbound_local_requests_whitelist: z.array(z.string()),
    dns_rebinding_protection_enabled: z.boolean(),
    deny_all_requests_except_allowed: z.boolean(),
    deletion_adjourned_period: integer,
    default_group_visibility: z.string(),
    default_project_visibility: z.string(),
    allow_group_owners_to_manage_ldap: z.boolean(),
    password_authentication_enabled_for_web: z.boolean(),
    require_two_factor_authentication: z.boolean(),
    two_factor_grace_period: integer,
    signup_enabled: z.boolean(),
    password_authentication_enabled: z.boolean(),
    signin_enabled: z.boolean(),
    allow_local_requests_from_hooks_and_services: z.boolean(),
  }),
);

export const Version = entity(
  "Version",
  "The GitLab version Canopy answers like.",
  z.object({
    version: z.string(),
    revision: z.string(),
    kas: z.object({
      enabled: z.boolean(),
      externalUrl: z.string().nullable(),
      externalK8sProxyUrl: z.string().nullable(),
      version: z.string().nullable(),
    }),
    enterprise: z.boolean(),
  }),
);

export const UserStateSuccess = entity(
  "UserStateSuccess",
  'What approving (201) or rejecting (200) a user pending approval answers: `{"message": "Success"}`.',
  z.object({ message: z.literal("Success") }),
);
