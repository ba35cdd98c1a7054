import { GROUP_HOOK_FLAGS } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import type { Hook } from "./hook";
import { alertStatus } from "./hook-rules";

/** A stored hook as the contract carries it: no token, no secret, map keys only. */
export function hookMessage(hook: Hook, autoDisable: boolean): hooks.GroupHook {
  const status = alertStatus(hook, autoDisable);
  return {
    id: hook.id,
    groupId: hook.group_id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    createdAt: hook.created_at,
    updatedAt: hook.updated_at,
    flags: Object.fromEntries(
      GROUP_HOOK_FLAGS.map((f) => [camel(f), hook.flags[f]]),
    ) as unknown as hooks.HookFlags,
    enableSslVerification: hook.enable_ssl_verification,
    alertStatus: status,
    disabledUntil: autoDisable ? (hook.disabled_until ?? undefined) : undefined,
    urlVariableKeys: Object.keys(hook.url_variables),
    customHeaderKeys: Object.keys(hook.custom_headers),
    pushEventsBranchFilter: hook.push_events_branch_filter ?? undefined,
    branchFilterStrategy: hook.branch_filter_strategy,
    customWebhookTemplate: hook.custom_webhook_template ?? undefined,
  };
}

/** push_events -> pushEvents (ts-proto's field names). */
export const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
