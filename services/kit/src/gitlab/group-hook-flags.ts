/**
 * A group hook's event flags (ee/app/models/hooks/group_hook.rb), in the order of GitLab's GroupHook
 * entity. The hooks service stores them (a column each) and the gateway takes them as parameters
 * and shapes the entity, so one list here keeps the three in step. Which trigger each flag enables
 * is the hooks service's payloads/triggers.ts; which triggers the test endpoint takes is
 * hook-triggers.ts.
 */
export const GROUP_HOOK_FLAGS = [
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

export type GroupHookFlag = (typeof GROUP_HOOK_FLAGS)[number];

/** milestone_events is answered but never set: GitLab's group-hook API does not take it. */
export type SettableGroupHookFlag = Exclude<GroupHookFlag, "milestone_events">;

/** The flags the group-hook API accepts, in the entity's order. */
export const GROUP_HOOK_SETTABLE_FLAGS = GROUP_HOOK_FLAGS.filter(
  (f): f is SettableGroupHookFlag => f !== "milestone_events",
);
