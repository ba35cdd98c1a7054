import type { Endpoint } from "../http/endpoint";
import { applicationSettingsEndpoints } from "./application-settings";
import { applicationEndpoints } from "./applications";
import { groupHookEndpoints } from "./group-hooks";
import { groupHookDeliveryEndpoints } from "./group-hook-deliveries";
import { groupPushRuleEndpoints } from "./group-push-rules";
import { groupMemberEndpoints } from "./group-members";
import { groupEndpoints } from "./groups";
import { groupSharingEndpoints } from "./group-sharing";
import { groupCustomAttributeEndpoints } from "./group-custom-attributes";
import { groupUpdateEndpoints } from "./group-update";
import { groupLifecycleEndpoints } from "./group-lifecycle";
import { groupListEndpoints } from "./group-lists";
import { groupProjectEndpoints } from "./group-projects";
import { ldapEndpoints } from "./ldap";
import { namespaceEndpoints } from "./namespaces";
import { openApiEndpoints } from "./openapi";
import { projectEndpoints } from "./projects";
import { projectCustomAttributeEndpoints } from "./project-custom-attributes";
import { userCustomAttributeEndpoints } from "./user-custom-attributes";
import { projectMemberEndpoints } from "./project-members";
import { projectSharingEndpoints } from "./project-sharing";
import { personalAccessTokenEndpoints } from "./personal-access-tokens";
import { userEndpoints } from "./users";
import { userSignInMethodEndpoints } from "./user-sign-in-methods";
import { userAvatarEndpoints } from "./user-avatar";
import { searchEndpoints } from "./search";
import { userStateEndpoints } from "./user-state";
import { impersonationTokenEndpoints } from "./impersonation-tokens";
import { userActivityEndpoints } from "./user-activities";
import { userStatusEndpoints } from "./user-status";
import { versionEndpoints } from "./version";
import { eventEndpoints } from "./events";

/**
 * Every /api/v4 endpoint, one file per GitLab API area. The fuzz test walks this list, so an
 * endpoint added here is fuzzed without a test of its own. Where two paths overlap
 * (`/personal_access_tokens/self` and `/:id`), the literal one must come first.
 */
export const API_ENDPOINTS: readonly Endpoint[] = [
  ...userEndpoints,
  ...userSignInMethodEndpoints,
  ...userAvatarEndpoints,
  ...searchEndpoints,
  ...userStateEndpoints,
  ...personalAccessTokenEndpoints,
  ...applicationEndpoints,
  ...applicationSettingsEndpoints,
  ...versionEndpoints,
  ...openApiEndpoints(() => API_ENDPOINTS),
  ...groupListEndpoints,
  ...groupEndpoints,
  ...groupSharingEndpoints,
  ...groupCustomAttributeEndpoints,
  ...groupPushRuleEndpoints,
  ...groupHookEndpoints,
  ...groupHookDeliveryEndpoints,
  ...groupUpdateEndpoints,
  ...groupLifecycleEndpoints,
  ...groupMemberEndpoints,
  ...groupProjectEndpoints,
  ...ldapEndpoints,
  ...namespaceEndpoints,
  ...projectEndpoints,
  ...projectMemberEndpoints,
  ...projectSharingEndpoints,
  ...projectCustomAttributeEndpoints,
  ...userCustomAttributeEndpoints,
  ...impersonationTokenEndpoints,
  ...userStatusEndpoints,
  ...userActivityEndpoints,
  ...eventEndpoints,
];
