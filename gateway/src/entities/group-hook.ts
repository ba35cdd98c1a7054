import type { hooks } from "@canopy/protos";
import { iso } from "./time";

/**
 * GitLab's GroupHook entity (lib/api/entities/hook.rb, ee/lib/ee/api/entities/group_hook.rb), in its
 * key order. The token is never shown; url_variables and custom_headers show their keys only.
 */
export function groupHookEntity(h: hooks.GroupHook) {
  const f = h.flags!;
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    created_at: iso(h.createdAt),
    push_events: f.pushEvents,
    tag_push_events: f.tagPushEvents,
    merge_requests_events: f.mergeRequestsEvents,
    repository_update_events: false,
    enable_ssl_verification: h.enableSslVerification,
    alert_status: h.alertStatus,
    disabled_until: iso(h.disabledUntil),
    url_variables: h.urlVariableKeys.map((key) => ({ key })),
    push_events_branch_filter: h.pushEventsBranchFilter ?? null,
    branch_filter_strategy: h.branchFilterStrategy,
    custom_webhook_template: h.customWebhookTemplate ?? null,
    custom_headers: h.customHeaderKeys.map((key) => ({ key })),
    group_id: h.groupId,
    issues_events: f.issuesEvents,
    confidential_issues_events: f.confidentialIssuesEvents,
    note_events: f.noteEvents,
    confidential_note_events: f.confidentialNoteEvents,
    pipeline_events: f.pipelineEvents,
    wiki_page_events: f.wikiPageEvents,
    job_events: f.jobEvents,
    deployment_events: f.deploymentEvents,
    feature_flag_events: f.featureFlagEvents,
    releases_events: f.releasesEvents,
    milestone_events: f.milestoneEvents,
    subgroup_events: f.subgroupEvents,
    emoji_events: f.emojiEvents,
    resource_access_token_events: f.resourceAccessTokenEvents,
    member_events: f.memberEvents,
    vulnerability_events: f.vulnerabilityEvents,
    project_events: f.projectEvents,
  };
}

/** GitLab's WebHookLog entity (lib/api/entities/web_hook_log.rb). */
export function hookLogEntity(l: hooks.HookLog) {
  return {
    id: l.id,
    url: l.url,
    trigger: l.trigger,
    request_headers: JSON.parse(l.requestHeadersJson || "{}"),
    request_data: JSON.parse(l.requestDataJson || "{}"),
    response_headers: JSON.parse(l.responseHeadersJson || "{}"),
    response_body: l.responseBody,
    execution_duration: l.executionDuration,
    response_status: l.responseStatus,
    created_at: iso(l.createdAt),
  };
}
