import type { z } from "zod";
import { PROJECT_FEATURES, PROJECT_FEATURE_ACCESS_LEVELS, PROJECT_FEATURE_SWITCHES } from "@canopy/kit";
import type { projects } from "@canopy/protos";
import { param } from "../http/params";

/**
 * The attributes POST /projects and PUT /projects/:id take (GitLab's projects_helpers.rb
 * optional_project_params), read as Grape reads them and carried to the projects service in four
 * maps (feature access levels, booleans, texts, integers), whose keys are the API's own names.
 */
const BOOLEANS = [
  ...Object.keys(PROJECT_FEATURE_SWITCHES),
  "shared_runners_enabled",
  "lfs_enabled",
  "request_access_enabled",
  "public_jobs",
  "public_builds",
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
  "packages_enabled",
  "service_desk_enabled",
  "keep_latest_artifact",
  "restrict_user_defined_variables",
  "mirror",
  "merge_pipelines_enabled",
  "merge_trains_enabled",
] as const;
const CHOICES = {
  merge_method: ["ff", "rebase_merge", "merge"],
  squash_option: ["never", "always", "default_on", "default_off"],
  auto_cancel_pending_pipelines: ["disabled", "enabled"],
  auto_devops_deploy_strategy: ["continuous", "manual", "timed_incremental"],
  build_git_strategy: ["fetch", "clone"],
} as const;
const TEXTS = [
  "build_coverage_regex",
  "ci_config_path",
  "suggestion_commit_message",
  "merge_commit_template",
  "squash_commit_template",
  "issue_branch_template",
] as const;
const NUMBERS = ["build_timeout", "ci_default_git_depth", "approvals_before_merge"] as const;

const accessLevel = () => param.oneOf(PROJECT_FEATURE_ACCESS_LEVELS).optional();

export const projectAttributeParams = {
  description: param.string(10_000).optional(),
  visibility: param.oneOf(["private", "internal", "public"]).optional(),
  default_branch: param.string(255).optional(),
  topics: param.array(param.string(255)).optional(),
  tag_list: param.array(param.string(255)).optional(),
  ...Object.fromEntries(PROJECT_FEATURES.map((f) => [`${f}_access_level`, accessLevel()])),
  ...Object.fromEntries(BOOLEANS.map((b) => [b, param.boolean().optional()])),
  ...Object.fromEntries(Object.entries(CHOICES).map(([k, v]) => [k, param.oneOf(v).optional()])),
  ...Object.fromEntries(TEXTS.map((t) => [t, param.string(10_000).nullable().optional()])),
  ...Object.fromEntries(NUMBERS.map((n) => [n, param.int32().optional()])),
} as Record<string, z.ZodTypeAny>;

type Raw = Record<string, unknown>;

/** The parsed parameters as the service's ProjectAttributes. */
export function toProjectAttributes(p: Raw & { name?: string; path?: string }): projects.ProjectAttributes {
  const str = (k: string) => (typeof p[k] === "string" ? (p[k] as string) : undefined);
  const topics = (p.topics ?? p.tag_list) as string[] | undefined;
  const accessLevels: Record<string, string> = {};
  for (const f of PROJECT_FEATURES)
    if (typeof p[`${f}_access_level`] === "string") accessLevels[f] = p[`${f}_access_level`] as string;
  const flags: Record<string, boolean> = {};
  for (const b of BOOLEANS)
    if (typeof p[b] === "boolean") flags[b === "public_builds" ? "public_jobs" : b] = p[b] as boolean;
  const texts: Record<string, string> = {};
  const cleared: string[] = [];
  for (const t of [...Object.keys(CHOICES), ...TEXTS]) {
    if (typeof p[t] === "string") texts[t] = p[t] as string;
    else if (p[t] === null) cleared.push(t);
  }
  const numbers: Record<string, number> = {};
  for (const n of NUMBERS) if (typeof p[n] === "number") numbers[n] = p[n] as number;
  return {
    name: p.name,
    path: p.path,
    description: str("description"),
    visibility: str("visibility"),
    defaultBranch: str("default_branch"),
    topics: topics ? { topics } : undefined,
    accessLevels,
    flags,
    texts,
    numbers,
    cleared,
  };
}
