import { GROUP_HOOK_FLAGS, type GroupHookFlag } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { iso } from "./time";

/** Each flag's API name and its field in the proto's HookFlags (`push_events`, `pushEvents`). */
const withField = (flag: GroupHookFlag) =>
  [flag, flag.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] as const;

/**
 * GitLab's Hook entity shows the flags up to merge_requests_events among the fields every hook has;
 * GroupHook shows the rest after group_id.
 */
const SPLIT = GROUP_HOOK_FLAGS.indexOf("merge_requests_events") + 1;
const HOOK_FLAGS = GROUP_HOOK_FLAGS.slice(0, SPLIT).map(withField);
const GROUP_FLAGS = GROUP_HOOK_FLAGS.slice(SPLIT).map(withField);

/** The values of `flags` in the proto's HookFlags, under their API names. */
function flagsOf(h: hooks.GroupHook, flags: typeof HOOK_FLAGS): Partial<Record<GroupHookFlag, boolean>> {
  const fields = h.flags! as unknown as Record<string, boolean>;
  return Object.fromEntries(flags.map(([flag, field]) => [flag, fields[field]]));
}

/**
 * GitLab's GroupHook entity (lib/api/entities/hook.rb, ee/lib/ee/api/entities/group_hook.rb), in its
 * key order. The token is never shown; url_variables and custom_headers show their keys only.
 */
export function groupHookEntity(h: hooks.GroupHook) {
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    created_at: iso(h.createdAt),
    ...flagsOf(h, HOOK_FLAGS),
    // A system hook's flag, which GitLab's Hook entity shows for every hook.
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
    ...flagsOf(h, GROUP_FLAGS),
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
