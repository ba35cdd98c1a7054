/**
 * GitLab's project features (ProjectFeature::FEATURES), each set through `<feature>_access_level`.
 * The gateway reads the parameters and shapes the entity with them, and the projects service stores
 * and defaults them, so one list here keeps the three in step. The order is the entity's key order.
 */
export const PROJECT_FEATURES = [
  "issues",
  "repository",
  "merge_requests",
  "forking",
  "wiki",
  "builds",
  "snippets",
  "pages",
  "operations",
  "analytics",
  "requirements",
  "security_and_compliance",
  "container_registry",
  "releases",
  "environments",
  "feature_flags",
  "infrastructure",
  "monitor",
] as const;

export type ProjectFeature = (typeof PROJECT_FEATURES)[number];

/** A feature's access level by name: disabled, private, enabled, or public (pages only). */
export const PROJECT_FEATURE_ACCESS_LEVELS = ["disabled", "private", "enabled", "public"] as const;

/**
 * The old `*_enabled` booleans GitLab still takes and answers, each the on/off switch of one
 * feature. The order is the entity's key order.
 */
export const PROJECT_FEATURE_SWITCHES: Readonly<Record<string, ProjectFeature>> = {
  issues_enabled: "issues",
  merge_requests_enabled: "merge_requests",
  wiki_enabled: "wiki",
  jobs_enabled: "builds",
  snippets_enabled: "snippets",
  container_registry_enabled: "container_registry",
};
