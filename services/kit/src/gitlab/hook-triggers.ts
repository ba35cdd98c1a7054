/**
 * The `:trigger` values GitLab's hook test endpoint accepts (lib/api/hooks/trigger_test.rb):
 * ProjectHook's trigger flags, which it checks group hooks against too. The gateway validates the
 * path with them and the hooks service builds a sample payload for each.
 */
export const HOOK_TEST_TRIGGERS = [
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
