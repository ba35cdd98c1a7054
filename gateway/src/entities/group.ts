import { planFeatures, type Plan } from "@canopy/kit";
import type { groups } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso, orNull } from "./time";

/** What shaping a group needs besides the group: where links point and which tier is on. */
export interface GroupShaping {
  externalUrl: string;
  plan: Plan;
}

const base = (url: string) => url.replace(/\/+$/, "");

/**
 * GitLab's Group entity (lib/api/entities/group.rb with EE's additions), used by every list.
 * Higher-tier keys are left out on a lower plan, as GitLab CE leaves them out.
 */
export function groupEntity(
  g: groups.Group,
  s: GroupShaping,
  ldapGroupLinks?: z.infer<typeof schemas.LdapGroupLink>[],
): z.infer<typeof schemas.Group> {
  const tier = planFeatures(s.plan);
  const url = base(s.externalUrl);
  return {
    id: g.id,
    web_url: `${url}/groups/${g.fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility as z.infer<typeof schemas.visibility>,
    share_with_group_lock: g.shareWithGroupLock,
    require_two_factor_authentication: g.requireTwoFactorAuthentication,
    two_factor_grace_period: g.twoFactorGracePeriod,
    project_creation_level: g.projectCreationLevel,
    auto_devops_enabled: g.autoDevopsEnabled ?? null,
    subgroup_creation_level: g.subgroupCreationLevel,
    emails_disabled: g.emailsDisabled ?? null,
    emails_enabled: g.emailsDisabled === undefined ? null : !g.emailsDisabled,
    mentions_disabled: g.mentionsDisabled ?? null,
    lfs_enabled: g.lfsEnabled,
    default_branch: null,
    default_branch_protection: g.defaultBranchProtection,
    avatar_url: g.avatarPath ? `${url}${g.avatarPath}` : null,
    request_access_enabled: g.requestAccessEnabled,
    full_name: g.fullName,
    full_path: g.fullPath,
    created_at: iso(g.createdAt),
    parent_id: g.parentId || null,
    organization_id: 1,
    shared_runners_setting: g.sharedRunnersSetting,
    ldap_cn: null,
    ldap_access: null,
    ...(ldapGroupLinks?.length ? { ldap_group_links: ldapGroupLinks } : {}),
    ...(tier.fileTemplates ? { file_template_project_id: g.fileTemplateProjectId || null } : {}),
    ...(tier.adjournedDeletion ? { marked_for_deletion_on: orNull(g.markedForDeletionOn) } : {}),
    ...(g.customAttributes.length ? { custom_attributes: g.customAttributes } : {}),
    ...(g.statistics ? { statistics: statisticsEntity(g.statistics) } : {}),
  };
}

/** A group's storage statistics, in GitLab's snake_case keys (administrators, `statistics=true`). */
const statisticsEntity = (s: groups.GroupStatistics) => ({
  storage_size: s.storageSize,
  repository_size: s.repositorySize,
  wiki_size: s.wikiSize,
  lfs_objects_size: s.lfsObjectsSize,
  job_artifacts_size: s.jobArtifactsSize,
  pipeline_artifacts_size: s.pipelineArtifactsSize,
  packages_size: s.packagesSize,
  snippets_size: s.snippetsSize,
  uploads_size: s.uploadsSize,
});

export const sharedWithGroupEntity = (
  l: groups.SharedWithGroup,
): z.infer<typeof schemas.SharedWithGroup> => ({
  group_id: l.groupId,
  group_name: l.groupName,
  group_full_path: l.groupFullPath,
  group_access_level: l.groupAccessLevel,
  expires_at: orNull(l.expiresAt),
});

/**
 * The deprecated projects of a group detail, rendered by routes/group-projects.ts. The project
 * entity is built by assignment for speed and so typed loosely; test/entity-schemas.test.ts holds
 * it to its schema.
 */
export interface DetailProjects {
  projects: unknown[];
  shared_projects: unknown[];
}
type GroupDetailEntity = Omit<z.infer<typeof schemas.GroupDetail>, keyof DetailProjects> &
  Partial<DetailProjects>;

/**
 * GitLab's GroupDetail: the group plus shared_with_groups, runners_token for those who administer
 * it, the higher-tier settings, and the deprecated `projects`/`shared_projects` (rendered by the
 * caller, routes/group-projects.ts; empty when not given) unless `withProjects` is false.
 */
export function groupDetailEntity(
  d: groups.GroupDetail,
  s: GroupShaping,
  options: {
    withProjects?: boolean;
    projects?: DetailProjects;
    /** The EE entity's `ldap_group_links` (routes/group-ldap.ts); left out when empty. */
    ldapGroupLinks?: z.infer<typeof schemas.LdapGroupLink>[];
  } = {},
): GroupDetailEntity {
  const g = d.group!;
  const tier = planFeatures(s.plan);
  return {
    ...groupEntity(g, s, options.ldapGroupLinks),
    shared_with_groups: d.sharedWithGroups.map(sharedWithGroupEntity),
    ...(d.runnersToken !== undefined ? { runners_token: d.runnersToken } : {}),
    ...(g.parentId
      ? {}
      : { prevent_sharing_groups_outside_hierarchy: g.preventSharingGroupsOutsideHierarchy }),
    ...(tier.premiumGroupFields
      ? {
          shared_runners_minutes_limit: g.sharedRunnersMinutesLimit ?? null,
          extra_shared_runners_minutes_limit: g.extraSharedRunnersMinutesLimit ?? null,
          membership_lock: g.membershipLock,
          prevent_forking_outside_group: g.preventForkingOutsideGroup,
        }
      : {}),
    ...(options.withProjects === false ? {} : (options.projects ?? { projects: [], shared_projects: [] })),
  };
}
