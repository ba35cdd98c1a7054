// Generated contracts, re-exported by package so callers write `auth.User`, `events.Event`.
export * as common from "./gen/canopy/common/v1/common";
export * as auth from "./gen/canopy/auth/v1/auth";
export * as userCustomAttributes from "./gen/canopy/auth/v1/custom_attributes";
export * as userAvatars from "./gen/canopy/auth/v1/avatars";
export * as userState from "./gen/canopy/auth/v1/user_state";
export * as impersonationTokens from "./gen/canopy/auth/v1/impersonation_tokens";
export * as userStatus from "./gen/canopy/auth/v1/user_status";
export * as userActivity from "./gen/canopy/auth/v1/user_activity";
export {
  IMPERSONATION_TOKENS_IDEMPOTENT_METHODS,
  USER_STATUS_IDEMPOTENT_METHODS,
  USER_ACTIVITY_IDEMPOTENT_METHODS,
} from "./idempotent";
export * as events from "./gen/canopy/events/v1/events";
export { Timestamp } from "./gen/google/protobuf/timestamp";
export {
  AUTH_IDEMPOTENT_METHODS,
  USER_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  USER_AVATARS_IDEMPOTENT_METHODS,
  GROUPS_IDEMPOTENT_METHODS,
  GROUP_PUSH_RULES_IDEMPOTENT_METHODS,
  GROUP_MEMBERS_IDEMPOTENT_METHODS,
  NAMESPACES_IDEMPOTENT_METHODS,
  SETTINGS_IDEMPOTENT_METHODS,
  GROUP_SHARING_IDEMPOTENT_METHODS,
  GROUP_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  GROUP_LIFECYCLE_IDEMPOTENT_METHODS,
} from "./idempotent";
export { GROUP_AVATARS_IDEMPOTENT_METHODS } from "./idempotent";
export * as oauth from "./gen/canopy/auth/v1/oauth";
export { OAUTH_SCOPES, PERSONAL_ACCESS_TOKEN_SCOPES } from "./scopes";
export { AUTH_EVENTS, AUTH_SUBJECTS, userSnapshotOf } from "./events/auth";
export * as settings from "./gen/canopy/auth/v1/settings";
export * as groups from "./gen/canopy/groups/v1/groups";
export * as groupEvents from "./gen/canopy/groups/v1/events";
export * as namespaces from "./gen/canopy/groups/v1/namespaces";
export { GROUPS_EVENTS, GROUPS_SUBJECTS } from "./events/groups";
export * as groupSharing from "./gen/canopy/groups/v1/sharing";
export * as groupCustomAttributes from "./gen/canopy/groups/v1/custom_attributes";
export * as pushRules from "./gen/canopy/groups/v1/push_rules";
export * as groupAvatars from "./gen/canopy/groups/v1/avatars";
export * as groupLifecycle from "./gen/canopy/groups/v1/lifecycle";
export * as groupMembers from "./gen/canopy/groups/v1/members";
export * as projects from "./gen/canopy/projects/v1/projects";
export * as projectEvents from "./gen/canopy/projects/v1/events";
export * as groupProjects from "./gen/canopy/projects/v1/group_projects";
export * as groupProjectEvents from "./gen/canopy/projects/v1/group_project_events";
export * as projectBackfillEvents from "./gen/canopy/projects/v1/backfill_events";
export { PROJECTS_EVENTS, PROJECTS_SUBJECTS } from "./events/projects";
export {
  PROJECTS_IDEMPOTENT_METHODS,
  PROJECT_MEMBERS_IDEMPOTENT_METHODS,
  PROJECT_SHARING_IDEMPOTENT_METHODS,
  PROJECT_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
} from "./idempotent";
export * as projectMembers from "./gen/canopy/projects/v1/members";
export * as projectSharing from "./gen/canopy/projects/v1/sharing";
export * as projectCustomAttributes from "./gen/canopy/projects/v1/custom_attributes";
export * as projectActivity from "./gen/canopy/projects/v1/activity_events";
export { PROJECT_EVENTS_IDEMPOTENT_METHODS } from "./idempotent";
export { GROUP_PROJECTS_IDEMPOTENT_METHODS } from "./idempotent";
export * as projectLifecycle from "./gen/canopy/projects/v1/project_lifecycle";
export * as ldap from "./gen/canopy/ldap/v1/ldap";
export * as ldapEvents from "./gen/canopy/ldap/v1/events";
export { LDAP_EVENTS, LDAP_SUBJECTS } from "./events/ldap";
export { LDAP_IDEMPOTENT_METHODS } from "./idempotent";
export * as hooks from "./gen/canopy/hooks/v1/hooks";
export { GROUP_HOOKS_IDEMPOTENT_METHODS } from "./idempotent";
