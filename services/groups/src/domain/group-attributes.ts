import { addFieldError, type FieldErrors, isVisibilityName, visibilityLevelOf } from "@canopy/kit";
import type { groups } from "@canopy/protos";
import { PROJECT_CREATION_LEVELS, SUBGROUP_CREATION_LEVELS } from "./access";
import { descriptionErrors, nameErrors } from "./group-rules";

/** The columns an attribute set writes (undefined: not given). */
export interface GroupSettings {
  name?: string;
  path?: string;
  description?: string;
  visibility_level?: number;
  share_with_group_lock?: boolean;
  require_two_factor_authentication?: boolean;
  two_factor_grace_period?: number;
  allow_mfa_for_subgroups?: boolean;
  project_creation_level?: number;
  subgroup_creation_level?: number;
  auto_devops_enabled?: boolean;
  emails_disabled?: boolean;
  mentions_disabled?: boolean;
  lfs_enabled?: boolean;
  request_access_enabled?: boolean;
  default_branch_protection?: number;
  membership_lock?: boolean;
  prevent_forking_outside_group?: boolean;
  prevent_sharing_groups_outside_hierarchy?: boolean;
  shared_runners_setting?: string;
  shared_runners_minutes_limit?: number;
  extra_shared_runners_minutes_limit?: number;
  file_template_project_id?: number;
}

const SHARED_RUNNERS_SETTINGS = [
  "enabled",
  "disabled_with_override",
  "disabled_and_unoverridable",
  "disabled_and_overridable",
];
const BRANCH_PROTECTIONS = [0, 1, 2, 3, 4];

/**
 * Translates API attributes into columns and checks each value on its own (rules that need other
 * rows — uniqueness, the parent's visibility — are the commands'). Errors are keyed as GitLab keys
 * them (`visibility_level`, not `visibility`).
 */
export function settingsFrom(a: groups.GroupAttributes | undefined): {
  settings: GroupSettings;
  errors: FieldErrors;
} {
  const errors: FieldErrors = {};
  const s: GroupSettings = {};
  if (!a) return { settings: s, errors };
  nameErrors(a.name, errors);
  descriptionErrors(a.description, errors);
  s.name = a.name;
  s.path = a.path;
  s.description = a.description;
  if (a.visibility !== undefined) {
    if (isVisibilityName(a.visibility)) s.visibility_level = visibilityLevelOf(a.visibility);
    else addFieldError(errors, "visibility_level", "is not included in the list");
  }
  if (a.projectCreationLevel !== undefined) {
    const i = (PROJECT_CREATION_LEVELS as readonly string[]).indexOf(a.projectCreationLevel);
    if (i < 0) addFieldError(errors, "project_creation_level", "is not included in the list");
    else s.project_creation_level = i;
  }
  if (a.subgroupCreationLevel !== undefined) {
    const i = (SUBGROUP_CREATION_LEVELS as readonly string[]).indexOf(a.subgroupCreationLevel);
    if (i < 0) addFieldError(errors, "subgroup_creation_level", "is not included in the list");
    else s.subgroup_creation_level = i;
  }
  if (a.twoFactorGracePeriod !== undefined) {
    if (a.twoFactorGracePeriod < 0)
      addFieldError(errors, "two_factor_grace_period", "must be greater than or equal to 0");
    else s.two_factor_grace_period = a.twoFactorGracePeriod;
  }
  if (a.defaultBranchProtection !== undefined) {
    if (!BRANCH_PROTECTIONS.includes(a.defaultBranchProtection))
      addFieldError(errors, "default_branch_protection", "is not included in the list");
    else s.default_branch_protection = a.defaultBranchProtection;
  }
  if (a.sharedRunnersSetting !== undefined) {
    if (!SHARED_RUNNERS_SETTINGS.includes(a.sharedRunnersSetting))
      addFieldError(errors, "shared_runners_setting", "is not included in the list");
    else s.shared_runners_setting = a.sharedRunnersSetting;
  }
  s.share_with_group_lock = a.shareWithGroupLock;
  s.require_two_factor_authentication = a.requireTwoFactorAuthentication;
  s.allow_mfa_for_subgroups = a.allowMfaForSubgroups;
  s.auto_devops_enabled = a.autoDevopsEnabled;
  s.emails_disabled = a.emailsDisabled;
  s.mentions_disabled = a.mentionsDisabled;
  s.lfs_enabled = a.lfsEnabled;
  s.request_access_enabled = a.requestAccessEnabled;
  s.membership_lock = a.membershipLock;
  s.prevent_forking_outside_group = a.preventForkingOutsideGroup;
  s.prevent_sharing_groups_outside_hierarchy = a.preventSharingGroupsOutsideHierarchy;
  s.shared_runners_minutes_limit = a.sharedRunnersMinutesLimit;
  s.extra_shared_runners_minutes_limit = a.extraSharedRunnersMinutesLimit;
  s.file_template_project_id = a.fileTemplateProjectId;
  return { settings: s, errors };
}
