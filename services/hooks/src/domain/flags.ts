/**
 * A group hook's event flags (ee/app/models/hooks/group_hook.rb), in the entity's order. Which
 * trigger scope each flag enables, and its X-Gitlab-Event, are payloads/triggers.ts (HOOK_TRIGGERS);
 * which flags the test endpoint takes is payloads/test-payloads.ts (TEST_TRIGGERS).
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
