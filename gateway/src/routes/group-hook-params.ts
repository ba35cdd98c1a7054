import type { z } from "zod";
import { GROUP_HOOK_SETTABLE_FLAGS, type SettableGroupHookFlag } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { paramError } from "../http/errors";
import { param, parseParams } from "../http/params";

/** The group-hook parameters GitLab's API takes (lib/api/hooks/*.rb), and their parsing. */

/**
 * The settable flags in the order GitLab's group_hooks.rb declares them, which is the order Grape
 * (and parseParams) names several bad ones in: these ten lead, in their own order, and the rest
 * follow in the entity's order (GROUP_HOOK_SETTABLE_FLAGS).
 */
const DECLARED_FIRST: readonly SettableGroupHookFlag[] = [
  "push_events",
  "issues_events",
  "confidential_issues_events",
  "merge_requests_events",
  "tag_push_events",
  "note_events",
  "confidential_note_events",
  "job_events",
  "pipeline_events",
  "project_events",
];
const FLAG_PARAMS = [
  ...DECLARED_FIRST,
  ...GROUP_HOOK_SETTABLE_FLAGS.filter((f) => !DECLARED_FIRST.includes(f)),
];

/** Rack::Utils::HTTP_STATUS_CODES, the codes GET .../events filters by. */
const HTTP_CODES = [
  100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307,
  308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422,
  423, 424, 425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 511,
].map(String);
export const STATUS_VALUES = new Set([...HTTP_CODES, "successful", "client_failure", "server_failure"]);

const text = (max: number) => param.string(max).optional();
export const hookParams = {
  url: text(10_000),
  name: text(10_000),
  description: text(100_000),
  token: text(10_000),
  enable_ssl_verification: param.boolean().optional(),
  push_events_branch_filter: text(100_000),
  branch_filter_strategy: param.oneOf(["wildcard", "regex", "all_branches"]).optional(),
  custom_webhook_template: text(100_000),
  ...Object.fromEntries(FLAG_PARAMS.map((f) => [f, param.boolean().optional()])),
} as Record<string, z.ZodType>;

/** `[{key, value}, ...]` (JSON, or a form's url_variables[][key]=...), Grape's Array of Hash. */
function pairsOf(raw: unknown, name: string): hooks.KeyValue[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw)
    ? raw
    : typeof raw === "object"
      ? Object.values(raw as Record<string, unknown>)
      : undefined;
  if (!list || list.length > 100) throw paramError(`${name} is invalid`);
  const problems: string[] = [];
  const pairs = list.map((item, i) => {
    const entry = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    const field = (k: "key" | "value") => {
      const v = entry[k];
      if (v === undefined || v === null) problems.push(`${name}[${i}][${k}] is missing`);
      else if (
        (typeof v !== "string" && typeof v !== "number") ||
        String(v).length > 10_000 ||
        String(v).includes("\0")
      )
        problems.push(`${name}[${i}][${k}] is invalid`);
      return v === undefined || v === null ? "" : String(v);
    };
    if (typeof item !== "object" || item === null || Array.isArray(item))
      problems.push(`${name}[${i}] is invalid`);
    return { key: field("key"), value: field("value") };
  });
  if (problems.length) throw paramError(problems.join(", "));
  return pairs;
}

/** :hook_id as the hooks service takes it; an id that cannot be one finds nothing (404). */
export function hookIdOf(raw: unknown): number {
  const parsed = parseParams({ hook_id: param.integer() }, { hook_id: raw });
  return parsed.hook_id > 0 ? parsed.hook_id : 0;
}

/** A create or update body as the hooks service takes it (route params without nulls). */
export function attributesOf(raw: Record<string, unknown>, requireUrl: boolean): hooks.HookAttributes {
  if (requireUrl && raw.url === undefined) throw paramError("url is missing");
  const p = parseParams(hookParams, raw) as Record<string, unknown>;
  const urlVariables = pairsOf(raw.url_variables, "url_variables");
  const customHeaders = pairsOf(raw.custom_headers, "custom_headers");
  const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return {
    ...Object.fromEntries(Object.entries(p).map(([k, v]) => [camel(k), v])),
    urlVariables,
    customHeaders,
  } as hooks.HookAttributes;
}

/** GitLab's Time.parse of If-Unmodified-Since: a header it cannot read is ignored. */
export function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : new Date(at);
}
