import { planFeatures, visibilityNameOf } from "@canopy/kit";
import type { groups } from "@canopy/protos";
import { PROJECT_CREATION_LEVELS, SUBGROUP_CREATION_LEVELS } from "../domain/access";
import type { Deps } from "../deps";
import type { NamespaceRow } from "../store/namespaces";

/** GitLab's avatar_url path for a group's avatar (absolute URL = external URL + this). */
export const avatarPath = (groupId: number, filename: string) =>
  `/uploads/-/system/group/avatar/${groupId}/${encodeURIComponent(filename)}`;

/**
 * A namespaces row as the API's Group (the list entity). Fields of a higher tier than the
 * deployment's plan stay empty; the gateway leaves their keys out by the same plan.
 */
export function toGroup(deps: Deps, row: NamespaceRow): groups.Group {
  const tier = planFeatures(deps.config.CANOPY_PLAN);
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    description: row.description,
    visibility: visibilityNameOf(row.visibility_level),
    shareWithGroupLock: row.share_with_group_lock,
    requireTwoFactorAuthentication: row.require_two_factor_authentication,
    twoFactorGracePeriod: row.two_factor_grace_period,
    projectCreationLevel: PROJECT_CREATION_LEVELS[row.project_creation_level] ?? "developer",
    autoDevopsEnabled: row.auto_devops_enabled ?? undefined,
    subgroupCreationLevel: SUBGROUP_CREATION_LEVELS[row.subgroup_creation_level] ?? "maintainer",
    emailsDisabled: row.emails_disabled ?? undefined,
    mentionsDisabled: row.mentions_disabled ?? undefined,
    lfsEnabled: row.lfs_enabled,
    defaultBranchProtection: row.default_branch_protection,
    avatarPath: row.avatar_filename ? avatarPath(row.id, row.avatar_filename) : "",
    requestAccessEnabled: row.request_access_enabled,
    fullName: row.full_name,
    fullPath: row.full_path,
    parentId: row.parent_id ?? 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sharedRunnersSetting: row.shared_runners_setting,
    membershipLock: row.membership_lock,
    preventForkingOutsideGroup: row.prevent_forking_outside_group,
    preventSharingGroupsOutsideHierarchy: row.prevent_sharing_groups_outside_hierarchy,
    sharedRunnersMinutesLimit: tier.premiumGroupFields
      ? (row.shared_runners_minutes_limit ?? undefined)
      : undefined,
    extraSharedRunnersMinutesLimit: tier.premiumGroupFields
      ? (row.extra_shared_runners_minutes_limit ?? undefined)
      : undefined,
    fileTemplateProjectId: row.file_template_project_id ?? 0,
    markedForDeletionOn: row.marked_for_deletion_on ?? "",
    customAttributes: [],
  };
}
