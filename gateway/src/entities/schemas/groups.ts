import { z } from "zod";
import { Project } from "./projects";
import { CustomAttribute, day, entity, integer, timestamp, url, userState, visibility } from "./registry";

/** GitLab's group-side entities: Group, GroupDetail, Member, Namespace, push rules, LDAP links. */

export const LdapGroupLink = entity(
  "LdapGroupLink",
  "A link from an LDAP group (cn) or filter to a group; `filter` only on plans with filter links.",
  z.object({
    cn: z.string().nullable(),
    group_access: integer,
    provider: z.string(),
    filter: z.string().nullable().optional(),
  }),
);

const groupShape = {
  id: integer,
  web_url: url,
  name: z.string(),
  path: z.string(),
  description: z.string(),
  visibility,
  share_with_group_lock: z.boolean(),
  require_two_factor_authentication: z.boolean(),
  two_factor_grace_period: integer,
  project_creation_level: z.string(),
  auto_devops_enabled: z.boolean().nullable(),
  subgroup_creation_level: z.string(),
  emails_disabled: z.boolean().nullable(),
  emails_enabled: z.boolean().nullable(),
  mentions_disabled: z.boolean().nullable(),
  lfs_enabled: z.boolean(),
  default_branch: z.string().nullable(),
  default_branch_protection: integer,
  avatar_url: url.nullable(),
  request_access_enabled: z.boolean(),
  full_name: z.string(),
  full_path: z.string(),
  created_at: timestamp.nullable(),
  parent_id: integer.nullable(),
  organization_id: integer,
  shared_runners_setting: z.string(),
  ldap_cn: z.string().nullable(),
  ldap_access: integer.nullable(),
  /** EE: the group's LDAP links, when LDAP is configured and the group has any (the detail only). */
  ldap_group_links: z.array(LdapGroupLink).optional(),
  /** Premium and up. */
  file_template_project_id: integer.nullable().optional(),
  /** Premium and up. */
  marked_for_deletion_on: day.nullable().optional(),
  /** Asked for by an administrator (`with_custom_attributes`). */
  custom_attributes: z.array(CustomAttribute).optional(),
  /** Asked for by an administrator (`statistics`). */
  statistics: z
    .object({
      storage_size: integer,
      repository_size: integer,
      wiki_size: integer,
      lfs_objects_size: integer,
      job_artifacts_size: integer,
      pipeline_artifacts_size: integer,
      packages_size: integer,
      snippets_size: integer,
      uploads_size: integer,
    })
    .optional(),
};
export const Group = entity("Group", "A group as every group list shows it.", z.object(groupShape));

export const SharedWithGroup = entity(
  "SharedWithGroup",
  "A group that a group or project is shared with, and at which access level.",
  z.object({
    group_id: integer,
    group_name: z.string(),
    group_full_path: z.string(),
    group_access_level: integer,
    expires_at: day.nullable(),
  }),
);

export const GroupDetail = entity(
  "GroupDetail",
  "A single group: the list entity plus its sharing, tier settings and (deprecated) projects.",
  z.object({
    ...groupShape,
    shared_with_groups: z.array(SharedWithGroup),
    /** For those who administer the group. */
    runners_token: z.string().optional(),
    /** Top-level groups only. */
    prevent_sharing_groups_outside_hierarchy: z.boolean().optional(),
    shared_runners_minutes_limit: integer.nullable().optional(),
    extra_shared_runners_minutes_limit: integer.nullable().optional(),
    membership_lock: z.boolean().optional(),
    prevent_forking_outside_group: z.boolean().optional(),
    /** Left out with `with_projects=false`. */
    projects: z.array(Project).optional(),
    shared_projects: z.array(Project).optional(),
  }),
);

export const memberUserShape = {
  id: integer,
  username: z.string(),
  name: z.string(),
  state: userState,
  locked: z.boolean(),
  avatar_url: z.string().nullable(),
  web_url: url,
};
export const MemberUser = entity(
  "MemberUser",
  "A member's UserBasic, from the groups service's copy of the user.",
  z.object(memberUserShape),
);

export const Member = entity(
  "Member",
  "A group or project member: the user's UserBasic, then the membership.",
  z.object({
    ...memberUserShape,
    access_level: integer,
    created_at: timestamp.nullable(),
    created_by: MemberUser.optional(),
    expires_at: day.nullable(),
    /** Administrators only. */
    email: z.string().optional(),
    /** A membership managed by LDAP (EE). */
    override: z.boolean().optional(),
    membership_state: z.string(),
  }),
);

export const MembersAdded = entity(
  "MembersAdded",
  "The answer of adding several users at once (`user_id=1,2,3`): success, or the errors by user.",
  z.union([
    z.object({ status: z.literal("success") }),
    z.object({ status: z.literal("error"), message: z.record(z.string(), z.string()) }),
  ]),
);

export const Namespace = entity(
  "Namespace",
  "A user's personal namespace or a group.",
  z.object({
    id: integer,
    name: z.string(),
    path: z.string(),
    kind: z.enum(["user", "group"]),
    full_path: z.string(),
    parent_id: integer.nullable(),
    avatar_url: z.string().nullable(),
    web_url: url,
    members_count_with_descendants: integer.optional(),
    billable_members_count: integer.optional(),
    plan: z.string().optional(),
    trial_ends_on: day.nullable().optional(),
    trial: z.boolean().optional(),
  }),
);

export const GroupPushRule = entity(
  "GroupPushRule",
  "A group's push rule; the four ultimate keys only on that plan.",
  z.object({
    id: integer,
    created_at: timestamp.nullable(),
    commit_message_regex: z.string().nullable(),
    commit_message_negative_regex: z.string().nullable(),
    branch_name_regex: z.string().nullable(),
    author_email_regex: z.string().nullable(),
    file_name_regex: z.string().nullable(),
    deny_delete_tag: z.boolean(),
    member_check: z.boolean(),
    prevent_secrets: z.boolean(),
    max_file_size: integer,
    commit_committer_check: z.boolean().optional(),
    commit_committer_name_check: z.boolean().optional(),
    reject_unsigned_commits: z.boolean().optional(),
    reject_non_dco_commits: z.boolean().optional(),
  }),
);

export const LdapGroup = entity(
  "LdapGroup",
  "A group found in an LDAP directory.",
  z.object({ cn: z.string() }),
);
