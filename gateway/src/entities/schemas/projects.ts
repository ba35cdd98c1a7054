import { PROJECT_FEATURES, PROJECT_FEATURE_ACCESS_LEVELS, PROJECT_FEATURE_SWITCHES } from "@canopy/kit";
import { z } from "zod";
import { CustomAttribute, day, entity, integer, timestamp, url, visibility } from "./registry";

/**
 * GitLab's project entities (lib/api/entities/basic_project_details.rb, project.rb). The projects
 * service fills every feature, flag, number and text setting it knows with GitLab's defaults
 * (services/projects/src/domain/project-settings.ts), so each key below is always there.
 */

const projectNamespace = z.object({
  id: integer,
  name: z.string(),
  path: z.string(),
  kind: z.enum(["user", "group"]),
  full_path: z.string(),
  parent_id: integer.nullable(),
  avatar_url: z.string().nullable(),
  web_url: url,
});

const basicProjectShape = {
  id: integer,
  description: z.string().nullable(),
  name: z.string(),
  name_with_namespace: z.string(),
  path: z.string(),
  path_with_namespace: z.string(),
  created_at: timestamp.nullable(),
  default_branch: z.string().nullable(),
  tag_list: z.array(z.string()),
  topics: z.array(z.string()),
  ssh_url_to_repo: z.string(),
  http_url_to_repo: url,
  web_url: url,
  readme_url: url.nullable(),
  avatar_url: url.nullable(),
  forks_count: integer,
  star_count: integer,
  last_activity_at: timestamp.nullable(),
  namespace: projectNamespace,
  /** Asked for by an administrator (`with_custom_attributes`). */
  custom_attributes: z.array(CustomAttribute).optional(),
};
export const BasicProject = entity(
  "BasicProject",
  "A project as `simple=true` lists show it.",
  z.object(basicProjectShape),
);

const featureLevel = z.enum(PROJECT_FEATURE_ACCESS_LEVELS);
const FLAGS = [
  "shared_runners_enabled",
  "lfs_enabled",
  "request_access_enabled",
  "public_jobs",
  "emails_disabled",
  "resolve_outdated_diff_discussions",
  "only_allow_merge_if_pipeline_succeeds",
  "allow_merge_on_skipped_pipeline",
  "only_allow_merge_if_all_discussions_are_resolved",
  "remove_source_branch_after_merge",
  "printing_merge_request_link_enabled",
  "autoclose_referenced_issues",
  "auto_devops_enabled",
  "ci_forward_deployment_enabled",
  "ci_job_token_scope_enabled",
  "packages_enabled",
  "service_desk_enabled",
  "keep_latest_artifact",
  "restrict_user_defined_variables",
  "mirror",
  "merge_pipelines_enabled",
  "merge_trains_enabled",
  // The old feature switches, derived from the access levels.
  ...Object.keys(PROJECT_FEATURE_SWITCHES),
];
const TEXTS = [
  "merge_method",
  "squash_option",
  "auto_cancel_pending_pipelines",
  "auto_devops_deploy_strategy",
  "build_git_strategy",
] as const;
const NULLABLE_TEXTS = [
  "build_coverage_regex",
  "ci_config_path",
  "suggestion_commit_message",
  "merge_commit_template",
  "squash_commit_template",
  "issue_branch_template",
] as const;
const NUMBERS = ["build_timeout", "ci_default_git_depth", "approvals_before_merge"] as const;

const keysOf = <T extends z.ZodType>(keys: readonly string[], schema: T) =>
  Object.fromEntries(keys.map((k) => [k, schema]));

const access = z.object({ access_level: integer, notification_level: integer }).nullable();

const projectShape = {
  ...basicProjectShape,
  _links: z.object({
    self: url,
    issues: url.optional(),
    merge_requests: url.optional(),
    repo_branches: url,
    labels: url,
    events: url,
    members: url,
    cluster_agents: url,
  }),
  empty_repo: z.boolean(),
  archived: z.boolean(),
  visibility,
  /** Projects in a personal namespace. */
  owner: z
    .object({
      id: integer,
      username: z.string(),
      name: z.string(),
      state: z.string(),
      avatar_url: z.string().nullable(),
      web_url: url,
    })
    .optional(),
  container_expiration_policy: z.object({
    cadence: z.string(),
    enabled: z.boolean(),
    keep_n: integer,
    older_than: z.string(),
    name_regex: z.string(),
    name_regex_keep: z.string().nullable(),
    next_run_at: timestamp.nullable(),
  }),
  repository_object_format: z.string(),
  ...keysOf(
    PROJECT_FEATURES.map((f) => `${f}_access_level`),
    featureLevel,
  ),
  ...keysOf(FLAGS, z.boolean()),
  ...keysOf(TEXTS, z.string()),
  ...keysOf(NULLABLE_TEXTS, z.string().nullable()),
  ...keysOf(NUMBERS, integer),
  service_desk_address: z.string().nullable(),
  can_create_merge_request_in: z.boolean(),
  emails_enabled: z.boolean(),
  creator_id: integer,
  import_url: z.string().nullable(),
  import_type: z.string().nullable(),
  import_status: z.string(),
  import_error: z.string().nullable(),
  open_issues_count: integer,
  description_html: z.string(),
  updated_at: timestamp.nullable(),
  ci_separated_caches: z.boolean(),
  ci_allow_fork_pipelines_to_run_in_parent_project: z.boolean(),
  group_runners_enabled: z.boolean(),
  runner_token_expiration_interval: integer.nullable(),
  enforce_auth_checks_on_uploads: z.boolean(),
  shared_with_groups: z.array(
    z.object({
      group_id: integer,
      group_name: z.string(),
      group_full_path: z.string(),
      group_access_level: integer,
      expires_at: day.nullable(),
    }),
  ),
  /** Premium and up. */
  marked_for_deletion_at: day.nullable().optional(),
  marked_for_deletion_on: day.nullable().optional(),
  compliance_frameworks: z.array(z.string()),
};
export const Project = entity(
  "Project",
  "A project as lists and the group detail show it.",
  z.object(projectShape),
);

export const ProjectWithAccess = entity(
  "ProjectWithAccess",
  "A single project, with the caller's own access to it.",
  z.object({
    ...projectShape,
    permissions: z.object({ project_access: access, group_access: access }),
  }),
);

export const ProjectGroupLink = entity(
  "ProjectGroupLink",
  "A project shared with a group.",
  z.object({
    id: integer,
    project_id: integer,
    group_id: integer,
    group_access: integer,
    expires_at: day.nullable(),
  }),
);
