import { PROJECT_FEATURES, PROJECT_FEATURE_SWITCHES, addFieldError, type FieldErrors } from "@canopy/kit";
import type { projects } from "@canopy/protos";

/**
 * A project's settings beyond its identity, with GitLab's defaults (db/structure.sql column defaults
 * and the project feature defaults). Stored as given in two jsonb columns; what is absent takes the
 * default here, so a new setting needs no migration.
 */

/** Feature access levels: 0 disabled, 10 private, 20 enabled, 30 public (pages only). */
export const ACCESS_LEVEL_VALUES: Record<string, number> = {
  disabled: 0,
  private: 10,
  enabled: 20,
  public: 30,
};
const ACCESS_LEVEL_NAMES = Object.fromEntries(Object.entries(ACCESS_LEVEL_VALUES).map(([k, v]) => [v, k]));

const FEATURE_DEFAULTS: Record<string, number> = {
  ...Object.fromEntries(PROJECT_FEATURES.map((f) => [f, 20])),
  pages: 10,
  security_and_compliance: 10,
};

export const FLAG_DEFAULTS: Record<string, boolean> = {
  shared_runners_enabled: true,
  lfs_enabled: true,
  request_access_enabled: true,
  public_jobs: true,
  emails_disabled: false,
  resolve_outdated_diff_discussions: false,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: false,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  autoclose_referenced_issues: true,
  auto_devops_enabled: true,
  ci_forward_deployment_enabled: true,
  ci_job_token_scope_enabled: false,
  packages_enabled: true,
  service_desk_enabled: false,
  keep_latest_artifact: true,
  restrict_user_defined_variables: false,
  mirror: false,
  merge_pipelines_enabled: false,
  merge_trains_enabled: false,
};

/** Text settings; null where GitLab's column is null. */
export const TEXT_DEFAULTS: Record<string, string | null> = {
  merge_method: "merge",
  squash_option: "default_off",
  auto_cancel_pending_pipelines: "enabled",
  auto_devops_deploy_strategy: "continuous",
  build_git_strategy: "fetch",
  build_coverage_regex: null,
  ci_config_path: null,
  suggestion_commit_message: null,
  merge_commit_template: null,
  squash_commit_template: null,
  issue_branch_template: null,
};

export const NUMBER_DEFAULTS: Record<string, number> = {
  build_timeout: 3600,
  ci_default_git_depth: 20,
  approvals_before_merge: 0,
};

/** Values GitLab's API accepts for the enumerated texts (lib/api/helpers/projects_helpers.rb). */
const TEXT_CHOICES: Record<string, readonly string[]> = {
  merge_method: ["ff", "rebase_merge", "merge"],
  squash_option: ["never", "always", "default_on", "default_off"],
  auto_cancel_pending_pipelines: ["disabled", "enabled"],
  auto_devops_deploy_strategy: ["continuous", "manual", "timed_incremental"],
  build_git_strategy: ["fetch", "clone"],
};

export interface StoredSettings {
  access_levels: Record<string, number>;
  settings: Record<string, boolean | string | number | null>;
}

/** The full view of stored settings, defaults filled in, as the proto carries them. */
export function settingsView(stored: StoredSettings) {
  const accessLevels: Record<string, string> = {};
  for (const f of PROJECT_FEATURES)
    accessLevels[f] = ACCESS_LEVEL_NAMES[stored.access_levels[f] ?? FEATURE_DEFAULTS[f]!] ?? "enabled";
  const flags: Record<string, boolean> = {};
  for (const [k, d] of Object.entries(FLAG_DEFAULTS)) {
    const v = stored.settings[k];
    flags[k] = typeof v === "boolean" ? v : d;
  }
  const texts: Record<string, string> = {};
  for (const [k, d] of Object.entries(TEXT_DEFAULTS)) {
    const v = k in stored.settings ? stored.settings[k] : d;
    if (typeof v === "string") texts[k] = v;
  }
  const numbers: Record<string, number> = {};
  for (const [k, d] of Object.entries(NUMBER_DEFAULTS)) {
    const v = stored.settings[k];
    numbers[k] = typeof v === "number" ? v : d;
  }
  return { accessLevels, flags, texts, numbers };
}

/**
 * The settings a request changes, checked: unknown keys are ignored (as Grape ignores undeclared
 * parameters), bad values are model errors keyed by attribute. The `*_enabled` switches set their
 * feature to enabled or disabled unless the request also names the feature's level.
 */
export function settingsChanges(a: projects.ProjectAttributes | undefined, errors: FieldErrors) {
  const accessLevels: Record<string, number> = {};
  const settings: Record<string, boolean | string | number | null> = {};
  if (!a) return { accessLevels, settings };
  for (const [sw, feature] of Object.entries(PROJECT_FEATURE_SWITCHES)) {
    const on = a.flags[sw];
    if (on !== undefined && a.accessLevels[feature] === undefined) accessLevels[feature] = on ? 20 : 0;
  }
  for (const [feature, name] of Object.entries(a.accessLevels)) {
    if (!(PROJECT_FEATURES as readonly string[]).includes(feature)) continue;
    const level = ACCESS_LEVEL_VALUES[name];
    if (level === undefined || (level === 30 && feature !== "pages"))
      addFieldError(errors, `${feature}_access_level`, "is not included in the list");
    else accessLevels[feature] = level;
  }
  for (const [k, v] of Object.entries(a.flags)) if (k in FLAG_DEFAULTS) settings[k] = v;
  for (const [k, v] of Object.entries(a.texts)) {
    if (!(k in TEXT_DEFAULTS)) continue;
    const choices = TEXT_CHOICES[k];
    if (choices && !choices.includes(v)) addFieldError(errors, k, "is not included in the list");
    else settings[k] = v;
  }
  for (const k of a.cleared) if (k in TEXT_DEFAULTS && !TEXT_CHOICES[k]) settings[k] = null;
  for (const [k, v] of Object.entries(a.numbers)) {
    if (!(k in NUMBER_DEFAULTS)) continue;
    if (k === "build_timeout" && (v < 600 || v > 2_592_000))
      addFieldError(errors, k, "needs to be between 10 minutes and 1 month");
    else if (k === "ci_default_git_depth" && (v < 0 || v > 1000))
      addFieldError(errors, k, "must be less than or equal to 1000");
    else settings[k] = v;
  }
  return { accessLevels, settings };
}
