/**
 * A group hook's event flags and GitLab's trigger scopes (app/models/concerns/triggerable_hooks.rb,
 * ee/app/models/hooks/group_hook.rb). The scope is what logs call `trigger`; `X-Gitlab-Event` is
 * the scope singularized and title-cased ("member_hooks" -> "Member Hook").
 */
export const FLAGS = [
  "push_events",
  "tag_push_events",
  "merge_requests_events",
  "issues_events",
  "confidential_issues_events",
  "note_events",
  "confidential_note_events",
  "pipeline_events",
  "wiki_page_events",
  "job_events",
  "deployment_events",
  "feature_flag_events",
  "releases_events",
  "milestone_events",
  "subgroup_events",
  "emoji_events",
  "resource_access_token_events",
  "member_events",
  "vulnerability_events",
  "project_events",
] as const;
export type Flag = (typeof FLAGS)[number];

/** The flags the group-hook API accepts (milestone_events is answered, never set). */
export const SETTABLE_FLAGS = FLAGS.filter((f) => f !== "milestone_events");

/** Flag -> trigger scope. */
export const TRIGGER_OF: Record<Flag, string> = {
  push_events: "push_hooks",
  tag_push_events: "tag_push_hooks",
  merge_requests_events: "merge_request_hooks",
  issues_events: "issue_hooks",
  confidential_issues_events: "confidential_issue_hooks",
  note_events: "note_hooks",
  confidential_note_events: "confidential_note_hooks",
  pipeline_events: "pipeline_hooks",
  wiki_page_events: "wiki_page_hooks",
  job_events: "job_hooks",
  deployment_events: "deployment_hooks",
  feature_flag_events: "feature_flag_hooks",
  releases_events: "release_hooks",
  milestone_events: "milestone_hooks",
  subgroup_events: "subgroup_hooks",
  emoji_events: "emoji_hooks",
  resource_access_token_events: "resource_access_token_hooks",
  member_events: "member_hooks",
  vulnerability_events: "vulnerability_hooks",
  project_events: "project_hooks",
};

/** "member_hooks" -> "Member Hook" (GitLab: scope.to_s.singularize.titleize). */
export const eventHeaderOf = (trigger: string) =>
  trigger
    .replace(/_hooks$/, "_hook")
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");

/**
 * The trigger names the test endpoint takes: ProjectHook's flags (lib/api/hooks/trigger_test.rb).
 * member_events and subgroup_events are group-only, so not among them.
 */
export const TEST_TRIGGERS = [
  "push_events",
  "tag_push_events",
  "issues_events",
  "confidential_issues_events",
  "note_events",
  "confidential_note_events",
  "merge_requests_events",
  "job_events",
  "pipeline_events",
  "wiki_page_events",
  "deployment_events",
  "feature_flag_events",
  "releases_events",
  "emoji_events",
  "resource_access_token_events",
  "vulnerability_events",
] as const;
