import { GROUP_HOOK_FLAGS, GROUP_HOOK_SETTABLE_FLAGS, type GroupHookFlag, type Queryable } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import type { Strategy } from "../domain/branch-filter";
import {
  hookErrors,
  MAX_HOOKS_PER_GROUP,
  normalizeBranchFilter,
  urlToCheck,
  type HookErrors,
  type HookValues,
} from "../domain/hook-rules";
import type { Deps } from "../deps";
import { camel } from "../domain/hook-message";
import { countGroupHooks } from "../store/hooks";
import { urlBlockedAtSave } from "./outbound-guard";

/** A new hook's values before the request's: push_events on, SSL verification on, the rest off. */
export const DEFAULT_VALUES: HookValues = {
  url: "",
  token: null,
  url_variables: {},
  custom_headers: {},
  name: "",
  description: "",
  enable_ssl_verification: true,
  push_events_branch_filter: null,
  branch_filter_strategy: "wildcard",
  custom_webhook_template: null,
  flags: Object.fromEntries(GROUP_HOOK_FLAGS.map((f) => [f, f === "push_events"])) as Record<
    GroupHookFlag,
    boolean
  >,
};

const pairs = (list: hooks.KeyValue[]) => Object.fromEntries(list.map((p) => [p.key, p.value]));

/** Whether the request sent anything at all (GitLab: "No parameters provided" otherwise). */
export function anySent(a: hooks.HookAttributes): boolean {
  return (
    Object.entries(a).some(([k, v]) => v !== undefined && !Array.isArray(v) && k !== "$type") ||
    a.urlVariables.length > 0 ||
    a.customHeaders.length > 0
  );
}

/** `base` with the attributes the request sent; url_variables and custom_headers merged in. */
export function withAttributes(base: HookValues, a: hooks.HookAttributes): HookValues {
  const flags = { ...base.flags };
  const sent = a as unknown as Record<string, unknown>;
  for (const f of GROUP_HOOK_SETTABLE_FLAGS) {
    const v = sent[camel(f)];
    if (typeof v === "boolean") flags[f] = v;
  }
  return {
    url: a.url ?? base.url,
    token: a.token ?? base.token,
    url_variables: { ...base.url_variables, ...pairs(a.urlVariables) },
    custom_headers: { ...base.custom_headers, ...pairs(a.customHeaders) },
    name: a.name ?? base.name,
    description: a.description ?? base.description,
    enable_ssl_verification: a.enableSslVerification ?? base.enable_ssl_verification,
    push_events_branch_filter: a.pushEventsBranchFilter ?? base.push_events_branch_filter,
    branch_filter_strategy: (a.branchFilterStrategy as Strategy | undefined) ?? base.branch_filter_strategy,
    custom_webhook_template: a.customWebhookTemplate ?? base.custom_webhook_template,
    flags,
  };
}

/**
 * Every validation of a hook about to be saved, in GitLab's order, with the SSRF check of the URL
 * (the plain url, or the interpolated one when the hook has url_variables) and, on create, the
 * per-group limit (`creating`, checked under the group's lock by the caller's transaction).
 */
export async function validateHook(
  deps: Deps,
  values: HookValues,
  creating?: { tx: Queryable; groupId: number },
): Promise<{ values: HookValues; errors: HookErrors }> {
  const v = normalizeBranchFilter(values);
  const plain = Object.keys(v.url_variables).length ? undefined : urlToCheck(v, {});
  const urlBlocked = plain ? await urlBlockedAtSave(deps, plain.url) : undefined;
  const errors = hookErrors(v, urlBlocked);
  const interpolated = plain ? undefined : urlToCheck(v, errors);
  if (interpolated) {
    const reason = await urlBlockedAtSave(deps, interpolated.url);
    if (reason) (errors[interpolated.attribute] ??= []).push(reason);
  }
  if (creating && (await countGroupHooks(creating.tx, creating.groupId)) >= MAX_HOOKS_PER_GROUP)
    (errors.base ??= []).push(`Maximum number of group hooks (${MAX_HOOKS_PER_GROUP}) exceeded`);
  return { values: v, errors };
}
