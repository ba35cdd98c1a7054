import type { GroupHookFlag } from "@canopy/kit";
import { branchFilterErrors, squish, type Strategy } from "./branch-filter";
import { interpolate, rubyArray, variablesUsed } from "./url-template";

/**
 * GitLab's group-hook model rules (app/models/concerns/web_hooks/hook.rb, ee/app/models/hooks/
 * group_hook.rb, app/validators/json_schemas/web_hooks_{url_variables,custom_headers}.json), as
 * pure functions: what an update resets, and each attribute's errors in GitLab's validation order.
 * The SSRF check of the URL needs DNS and the settings, so the command runs it (it is given the
 * URL to check here: `urlToCheck`).
 */

export const MAX_HOOKS_PER_GROUP = 50;
export const MAX_TEMPLATE = 4096;
const MAX_MAP_ENTRIES = 20;
const URL_VARIABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CUSTOM_HEADER_KEY = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/;

/** A hook's attributes as the model holds them (secrets in clear, inside the process only). */
export interface HookValues {
  url: string;
  token: string | null;
  url_variables: Record<string, string>;
  custom_headers: Record<string, string>;
  name: string;
  description: string;
  enable_ssl_verification: boolean;
  push_events_branch_filter: string | null;
  branch_filter_strategy: Strategy;
  custom_webhook_template: string | null;
  flags: Record<GroupHookFlag, boolean>;
}

/** Errors by attribute, in the order GitLab adds them (`base` for the hook as a whole). */
export type HookErrors = Record<string, string[]>;

const add = (errors: HookErrors, attribute: string, message: string) =>
  (errors[attribute] ??= []).push(message);

/** Whether a map satisfies its JSON schema (object, at most 20 entries, keys and value lengths). */
function mapValid(map: Record<string, string>, key: RegExp, maxValue: number): boolean {
  const entries = Object.entries(map);
  return (
    entries.length <= MAX_MAP_ENTRIES &&
    entries.every(([k, v]) => key.test(k) && typeof v === "string" && v.length >= 1 && v.length <= maxValue)
  );
}

export const urlVariablesValid = (m: Record<string, string>) => mapValid(m, URL_VARIABLE_KEY, 100);
export const customHeadersValid = (m: Record<string, string>) => mapValid(m, CUSTOM_HEADER_KEY, 2048);

/** The interpolated URL, or undefined when a variable is missing. */
export const interpolatedUrl = (v: Pick<HookValues, "url" | "url_variables">) =>
  interpolate(v.url, v.url_variables);

/**
 * GitLab's before_validation callbacks on an update: a new url without a token in the same request
 * drops the token; when the interpolated URL changes, url_variables are dropped when their keys
 * overlap the old ones (or a pair is kept while the url changed) and custom_headers are dropped.
 * `tokenSent`: the request named `token` (GitLab: encrypted_token_changed?).
 */
export function applyUpdateResets(before: HookValues, after: HookValues, tokenSent: boolean): HookValues {
  const next = { ...after };
  const urlChanged = before.url !== after.url;
  if (urlChanged && !tokenSent) next.token = null;
  const oldInterpolated = interpolatedUrl(before);
  const changed = () => oldInterpolated !== interpolatedUrl(next);
  if (Object.keys(before.url_variables).length && changed()) {
    const oldKeys = Object.keys(before.url_variables);
    const overlapKeys = oldKeys.some((k) => k in next.url_variables);
    const overlapPairs = Object.entries(before.url_variables).some(([k, v]) => next.url_variables[k] === v);
    if (overlapKeys || (urlChanged && overlapPairs)) next.url_variables = {};
  }
  // An interpolation that fails leaves the headers: the record is invalid and is not saved anyway.
  if (interpolatedUrl(next) !== undefined && changed()) next.custom_headers = {};
  return next;
}

/** The branch filter as stored: forced to null for all_branches, squished for wildcard. */
export function normalizeBranchFilter(v: HookValues): HookValues {
  if (v.branch_filter_strategy === "all_branches") return { ...v, push_events_branch_filter: null };
  if (v.branch_filter_strategy === "wildcard" && v.push_events_branch_filter !== null)
    return { ...v, push_events_branch_filter: squish(v.push_events_branch_filter) };
  return v;
}

/**
 * Which URL the SSRF check looks at: the url itself when the hook has no url_variables, the
 * interpolated one (reported on `interpolated_url`) when it has, and none when it is already invalid.
 */
export function urlToCheck(
  v: HookValues,
  errors: HookErrors,
): { url: string; attribute: string } | undefined {
  if (!Object.keys(v.url_variables).length) return v.url ? { url: v.url, attribute: "url" } : undefined;
  if (Object.keys(errors).length) return undefined;
  const url = interpolatedUrl(v);
  return url === undefined ? undefined : { url, attribute: "interpolated_url" };
}

/**
 * Every error but the URL check and the per-group limit, in GitLab's order: url presence, token,
 * branch filter, url_variables, missing variables (on url), custom_headers, template.
 * `urlBlocked`: the SSRF check's reason for the plain url, when the hook has no url_variables.
 */
export function hookErrors(v: HookValues, urlBlocked?: string): HookErrors {
  const errors: HookErrors = {};
  if (!v.url.trim()) add(errors, "url", "can't be blank");
  else if (urlBlocked) add(errors, "url", urlBlocked);
  if (v.token !== null && v.token.includes("\n")) add(errors, "token", "is invalid");
  for (const e of branchFilterErrors(v.push_events_branch_filter, v.branch_filter_strategy))
    add(errors, "push_events_branch_filter", e);
  if (!urlVariablesValid(v.url_variables)) add(errors, "url_variables", "must be a valid json schema");
  const missing = variablesUsed(v.url).filter((name) => !(name in v.url_variables));
  if (missing.length) add(errors, "url", `Invalid URL template. Missing keys: ${rubyArray(missing)}`);
  if (!customHeadersValid(v.custom_headers)) add(errors, "custom_headers", "must be a valid json schema");
  if (v.custom_webhook_template !== null && v.custom_webhook_template.length > MAX_TEMPLATE)
    add(errors, "custom_webhook_template", `is too long (maximum is ${MAX_TEMPLATE} characters)`);
  return errors;
}

/** "Interpolated url", "Custom webhook template": Rails' humanized attribute names. */
const humanize = (attribute: string) => {
  const text = attribute.replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** errors.full_messages.to_sentence. */
export function fullMessagesSentence(errors: HookErrors): string {
  const messages = Object.entries(errors).flatMap(([attribute, list]) =>
    list.map((m) => (attribute === "base" ? m : `${humanize(attribute)} ${m}`)),
  );
  if (messages.length <= 1) return messages[0] ?? "";
  if (messages.length === 2) return `${messages[0]} and ${messages[1]}`;
  return `${messages.slice(0, -1).join(", ")}, and ${messages.at(-1)}`;
}

/** How a create's errors read (app/services/web_hooks/create_service.rb): one string. */
export function createErrorMessage(errors: HookErrors): string {
  if (errors.url) return "Invalid url given";
  if (errors.push_events_branch_filter) return "Invalid branch filter given";
  if (errors.custom_headers) return "Custom headers must be a valid json schema";
  return fullMessagesSentence(errors);
}

/** How an update's errors read (lib/api/helpers/web_hooks_helpers.rb save_hook). */
export function updateError(errors: HookErrors): { error: string } | { fields: HookErrors } {
  if (errors.url) return { error: "Invalid url given" };
  if (errors.push_events_branch_filter) return { error: "Invalid branch filter given" };
  if (errors.custom_headers) return { error: "Custom headers validation failed" };
  return { fields: errors };
}

/**
 * GitLab's alert_status and whether the hook runs (app/models/concerns/web_hooks/auto_disabling.rb):
 * more than 39 failures in a row is disabled for good; 4..39 with disabled_until ahead is
 * temporarily disabled. With auto-disabling off every hook is executable.
 */
export function alertStatus(
  hook: { recent_failures: number; disabled_until: Date | null },
  autoDisable: boolean,
  now = new Date(),
): "executable" | "temporarily_disabled" | "disabled" {
  if (!autoDisable) return "executable";
  if (hook.recent_failures > MAX_FAILURES) return "disabled";
  if (hook.recent_failures >= FAILURE_THRESHOLD && hook.disabled_until && hook.disabled_until >= now)
    return "temporarily_disabled";
  return "executable";
}

export const FAILURE_THRESHOLD = 4;
export const MAX_FAILURES = 39;
const EXCEEDED_LIMIT = 40;
const MAX_BACKOFF_MS = 24 * 3600_000;

/**
 * backoff! after a failed delivery, only while the hook is executable: one more failure (capped at
 * 40); from the 4th on, disabled for 1 min x 2^(previous - 3), at most 24 h.
 */
export function afterFailure(
  hook: { recent_failures: number; disabled_until: Date | null },
  now = new Date(),
): { recent_failures: number; disabled_until: Date | null } {
  const previous = hook.recent_failures;
  const failures = Math.min(previous + 1, EXCEEDED_LIMIT);
  if (failures < FAILURE_THRESHOLD) return { recent_failures: failures, disabled_until: hook.disabled_until };
  const delay = Math.min(Math.max(60_000 * 2 ** Math.max(previous - 3, 0), 60_000), MAX_BACKOFF_MS);
  return { recent_failures: failures, disabled_until: new Date(now.getTime() + delay) };
}
