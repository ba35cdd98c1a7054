import type { GroupHooksServiceService } from "./gen/canopy/hooks/v1/hooks";
import type { ProjectsServiceService } from "./gen/canopy/projects/v1/projects";
import type { ProjectMembersServiceService } from "./gen/canopy/projects/v1/members";
import type { ProjectSharingServiceService } from "./gen/canopy/projects/v1/sharing";
import type { ProjectEventsServiceService } from "./gen/canopy/projects/v1/activity_events";
import type { ProjectCustomAttributesServiceService } from "./gen/canopy/projects/v1/custom_attributes";
import type { GroupProjectsServiceService } from "./gen/canopy/projects/v1/group_projects";
import type { AuthServiceService } from "./gen/canopy/auth/v1/auth";
import type { UserCustomAttributesServiceService } from "./gen/canopy/auth/v1/custom_attributes";
import type { UserAvatarsServiceService } from "./gen/canopy/auth/v1/avatars";
import type { ImpersonationTokensServiceService } from "./gen/canopy/auth/v1/impersonation_tokens";
import type { UserStatusServiceService } from "./gen/canopy/auth/v1/user_status";
import type { UserActivityServiceService } from "./gen/canopy/auth/v1/user_activity";
import type { SettingsServiceService } from "./gen/canopy/auth/v1/settings";
import type { GroupsServiceService } from "./gen/canopy/groups/v1/groups";
import type { GroupSharingServiceService } from "./gen/canopy/groups/v1/sharing";
import type { GroupCustomAttributesServiceService } from "./gen/canopy/groups/v1/custom_attributes";
import type { GroupPushRulesServiceService } from "./gen/canopy/groups/v1/push_rules";
import type { GroupAvatarsServiceService } from "./gen/canopy/groups/v1/avatars";
import type { GroupLifecycleServiceService } from "./gen/canopy/groups/v1/lifecycle";
import type { GroupMembersServiceService } from "./gen/canopy/groups/v1/members";
import type { NamespacesServiceService } from "./gen/canopy/groups/v1/namespaces";
import type { LdapServiceService } from "./gen/canopy/ldap/v1/ldap";

/**
 * Methods a client may safely send again after UNAVAILABLE: reads, and writes whose repetition
 * changes nothing more. Part of the contract, so it lives beside the generated code.
 */
export const AUTH_IDEMPOTENT_METHODS: (keyof typeof AuthServiceService)[] = [
  "authenticate",
  "getUser",
  "listUsers",
  "listPersonalAccessTokens",
  "getPersonalAccessToken",
  "revokePersonalAccessToken",
];

/** Custom attribute reads; a set or delete is not repeated blindly. */
export const USER_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS: (keyof typeof UserCustomAttributesServiceService)[] =
  ["listUserCustomAttributes", "getUserCustomAttribute"];

/** Impersonation token reads, and revoking (a second revocation changes nothing). */
export const IMPERSONATION_TOKENS_IDEMPOTENT_METHODS: (keyof typeof ImpersonationTokensServiceService)[] = [
  "listImpersonationTokens",
  "getImpersonationToken",
  "revokeImpersonationToken",
];

/** Status reads; a set is a replacement, but PATCH is not, so sets are not repeated blindly. */
export const USER_STATUS_IDEMPOTENT_METHODS: (keyof typeof UserStatusServiceService)[] = ["getUserStatus"];

/** Recording today's activity twice writes once; listing is a read. */
export const USER_ACTIVITY_IDEMPOTENT_METHODS: (keyof typeof UserActivityServiceService)[] = [
  "recordUserActivity",
  "listUserActivities",
];

/** Settings reads may be retried; an update is not (each one is a new version and event). */
/** Setting one's own avatar again with the same file leaves the same avatar. */
export const USER_AVATARS_IDEMPOTENT_METHODS: (keyof typeof UserAvatarsServiceService)[] = [
  "getUserAvatar",
  "setOwnAvatar",
];

export const SETTINGS_IDEMPOTENT_METHODS: (keyof typeof SettingsServiceService)[] = [
  "getApplicationSettings",
];

/** Group reads; every group write records events and is not repeated blindly. */
export const GROUPS_IDEMPOTENT_METHODS: (keyof typeof GroupsServiceService)[] = ["getGroup", "listGroups"];

/** Sharing writes only: neither is retried (a repeated unshare would answer 404 for a removed link). */
export const GROUP_SHARING_IDEMPOTENT_METHODS: (keyof typeof GroupSharingServiceService)[] = [];

/** Custom attribute reads; a set or delete records an event and is not repeated blindly. */
export const GROUP_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS: (keyof typeof GroupCustomAttributesServiceService)[] =
  ["listCustomAttributes", "getCustomAttribute"];
/** Push-rule reads; every push-rule write records an event and is not repeated blindly. */
export const GROUP_PUSH_RULES_IDEMPOTENT_METHODS: (keyof typeof GroupPushRulesServiceService)[] = [
  "authorizePushRules",
  "getPushRule",
];
/** Avatar reads. */
export const GROUP_AVATARS_IDEMPOTENT_METHODS: (keyof typeof GroupAvatarsServiceService)[] = ["getAvatar"];
/** Deleting, restoring and transferring each record events and answer differently when repeated. */
export const GROUP_LIFECYCLE_IDEMPOTENT_METHODS: (keyof typeof GroupLifecycleServiceService)[] = [];
/** Member reads; adding, changing and removing record events and are not repeated blindly. */
export const GROUP_MEMBERS_IDEMPOTENT_METHODS: (keyof typeof GroupMembersServiceService)[] = [
  "listMembers",
  "getMember",
  "getUserHighestAccessLevel",
];
/** Namespace reads. */
export const NAMESPACES_IDEMPOTENT_METHODS: (keyof typeof NamespacesServiceService)[] = [
  "listNamespaces",
  "getNamespace",
  "getNamespaceHint",
];

/** Project reads; a repeated star would answer 304 instead of 201, so writes are not retried. */
export const PROJECTS_IDEMPOTENT_METHODS: (keyof typeof ProjectsServiceService)[] = [
  "getProject",
  "listProjects",
];

/** Project member reads. */
export const PROJECT_MEMBERS_IDEMPOTENT_METHODS: (keyof typeof ProjectMembersServiceService)[] = [
  "listProjectMembers",
  "getProjectMember",
  "getUserHighestProjectAccessLevel",
];

/** Sharing writes only: neither is retried (a repeated unshare would answer 404). */
export const PROJECT_SHARING_IDEMPOTENT_METHODS: (keyof typeof ProjectSharingServiceService)[] = [];

/** Custom attribute reads; a set or delete records an event and is not repeated blindly. */
export const PROJECT_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS: (keyof typeof ProjectCustomAttributesServiceService)[] =
  ["listProjectCustomAttributes", "getProjectCustomAttribute"];
/** Group project reads; a repeated transfer would answer 400 "already in this namespace". */
export const GROUP_PROJECTS_IDEMPOTENT_METHODS: (keyof typeof GroupProjectsServiceService)[] = [
  "listGroupProjects",
  "groupDetailProjects",
];

/** LDAP reads and the sync request (asking twice queues at most one sync). */
export const LDAP_IDEMPOTENT_METHODS: (keyof typeof LdapServiceService)[] = [
  "listGroupLinks",
  "searchDirectoryGroups",
  "requestGroupSync",
  "getGroupSyncState",
  "listLinksOfGroups",
];

/** Hook reads; writes, tests and resends are never repeated blindly (a test or resend sends again). */
export const GROUP_HOOKS_IDEMPOTENT_METHODS: (keyof typeof GroupHooksServiceService)[] = [
  "authorizeHooks",
  "listHooks",
  "getHook",
  "listHookEvents",
];

/** Event lists are reads. */
export const PROJECT_EVENTS_IDEMPOTENT_METHODS: (keyof typeof ProjectEventsServiceService)[] = ["listEvents"];
