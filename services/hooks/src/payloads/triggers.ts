/**
 * GitLab's hook triggers (app/models/concerns/triggerable_hooks.rb and the GroupHook/ProjectHook
 * lists): the scope name logged as `trigger`, the hook flag that enables it, and its
 * `X-Gitlab-Event` header (the scope singularized and title-cased).
 */

export const HOOK_TRIGGERS = {
  push_hooks: { flag: "push_events", eventHeader: "Push Hook" },
  tag_push_hooks: { flag: "tag_push_events", eventHeader: "Tag Push Hook" },
  issue_hooks: { flag: "issues_events", eventHeader: "Issue Hook" },
  confidential_issue_hooks: { flag: "confidential_issues_events", eventHeader: "Confidential Issue Hook" },
  note_hooks: { flag: "note_events", eventHeader: "Note Hook" },
  confidential_note_hooks: { flag: "confidential_note_events", eventHeader: "Confidential Note Hook" },
  merge_request_hooks: { flag: "merge_requests_events", eventHeader: "Merge Request Hook" },
  job_hooks: { flag: "job_events", eventHeader: "Job Hook" },
  pipeline_hooks: { flag: "pipeline_events", eventHeader: "Pipeline Hook" },
  wiki_page_hooks: { flag: "wiki_page_events", eventHeader: "Wiki Page Hook" },
  deployment_hooks: { flag: "deployment_events", eventHeader: "Deployment Hook" },
  feature_flag_hooks: { flag: "feature_flag_events", eventHeader: "Feature Flag Hook" },
  release_hooks: { flag: "releases_events", eventHeader: "Release Hook" },
  milestone_hooks: { flag: "milestone_events", eventHeader: "Milestone Hook" },
  emoji_hooks: { flag: "emoji_events", eventHeader: "Emoji Hook" },
  resource_access_token_hooks: {
    flag: "resource_access_token_events",
    eventHeader: "Resource Access Token Hook",
  },
  vulnerability_hooks: { flag: "vulnerability_events", eventHeader: "Vulnerability Hook" },
  member_hooks: { flag: "member_events", eventHeader: "Member Hook" },
  subgroup_hooks: { flag: "subgroup_events", eventHeader: "Subgroup Hook" },
  project_hooks: { flag: "project_events", eventHeader: "Project Hook" },
} as const;

export type HookTrigger = keyof typeof HOOK_TRIGGERS;
export type HookFlag = (typeof HOOK_TRIGGERS)[HookTrigger]["flag"];

/** The `X-Gitlab-Event` value of a trigger. */
export const eventHeaderOf = (trigger: HookTrigger): string => HOOK_TRIGGERS[trigger].eventHeader;

/** The trigger a hook flag enables (`member_events` -> `member_hooks`), or undefined. */
export function triggerOfFlag(flag: string): HookTrigger | undefined {
  return (Object.keys(HOOK_TRIGGERS) as HookTrigger[]).find((t) => HOOK_TRIGGERS[t].flag === flag);
}

/** A payload for `trigger`, with its header. */
export const built = <P>(trigger: HookTrigger, payload: P) => ({
  trigger,
  eventHeader: eventHeaderOf(trigger),
  payload,
});
