import { z } from "zod";
import type { common, hooks } from "@canopy/protos";
import { groupHookEntity, hookLogEntity } from "../entities/group-hook";
import { endpoint, type Call } from "../http/endpoint";
import { paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { paginate, paginationParams } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { rawParams } from "./context";
import { groupRef } from "./groups";

/**
 * Group webhooks (GitLab ee/lib/api/group_hooks.rb, lib/api/hooks/*.rb). GitLab authenticates, finds
 * the group (404 "Group Not Found" when the caller cannot see it) and authorizes (403) in `before`
 * blocks, ahead of parameter validation: so each endpoint declares only `:id`, resolves the group
 * with the groups service, and parses the rest itself; when that fails, the hooks service's access
 * check answers first (AuthorizeHooks), then Grape's 400. The hooks service decides who may do what.
 */

const idParams = { id: param.idOrPath() };
type IdCall = Call<typeof idParams>;
/**
 * The other path parameters, declared (for the declaration checks, the fuzz and the API document) as
 * any text: a path segment always is one, so nothing is refused before the access check, and each
 * handler parses its own after it (`afterAccess`).
 */
const pathParam = param.string();

const FLAG_PARAMS = [
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
  "wiki_page_events",
  "deployment_events",
  "feature_flag_events",
  "releases_events",
  "subgroup_events",
  "emoji_events",
  "resource_access_token_events",
  "member_events",
  "vulnerability_events",
] as const;

/** ProjectHook's trigger flags: what POST .../test/:trigger takes (lib/api/hooks/trigger_test.rb). */
const TEST_TRIGGERS = [
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

/** Rack::Utils::HTTP_STATUS_CODES, the codes GET .../events filters by. */
const HTTP_CODES = [
  100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307,
  308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422,
  423, 424, 425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 511,
].map(String);
const STATUS_VALUES = new Set([...HTTP_CODES, "successful", "client_failure", "server_failure"]);

const text = (max: number) => param.string(max).optional();
const hookParams = {
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

type Scope = { actor: common.Actor; group: hooks.GroupScope };

/** The group as the caller may see it (404 "Group Not Found" otherwise) and the caller's access. */
async function scopeOf(call: IdCall): Promise<Scope> {
  const detail = await call.deps.groups.getGroup({
    actor: call.actor,
    group: groupRef(call.params.id),
    withCustomAttributes: false,
    withRunnersToken: false,
  });
  return { actor: call.actor, group: { groupId: detail.group!.id, accessLevel: detail.accessLevel } };
}

/** Parses with `parse`; on a parameter error the access check answers first (GitLab's order). */
async function afterAccess<T>(call: IdCall, scope: Scope, write: boolean, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (err) {
    await call.deps.groupHooks.authorizeHooks({ ...scope, write });
    throw err;
  }
}

/** Route params without null values (a null is taken as not sent). */
const sentParams = (call: IdCall) =>
  Object.fromEntries(Object.entries(rawParams(call.ctx)).filter(([, v]) => v !== null && v !== undefined));

/** :hook_id as the hooks service takes it; an id that cannot be one finds nothing (404). */
function hookIdOf(raw: unknown): number {
  const parsed = parseParams({ hook_id: param.integer() }, { hook_id: raw });
  return parsed.hook_id > 0 ? parsed.hook_id : 0;
}

function attributesOf(call: IdCall, requireUrl: boolean): hooks.HookAttributes {
  const raw = sentParams(call);
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
function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : new Date(at);
}

async function listHooks(call: IdCall) {
  const scope = await scopeOf(call);
  const p = await afterAccess(call, scope, false, () => parseParams(paginationParams, sentParams(call)));
  const res = await call.deps.groupHooks.listHooks({
    ...scope,
    page: { page: p.page ?? 1, perPage: p.per_page ?? 20, keyset: false, cursor: "" },
  });
  paginate(call.ctx, call.deps.config.CANOPY_EXTERNAL_URL, {
    offset: res.page!,
    itemsOnPage: res.hooks.length,
  });
  sendJson(call.ctx, 200, res.hooks.map(groupHookEntity));
}

async function showHook(call: IdCall) {
  const scope = await scopeOf(call);
  const hookId = await afterAccess(call, scope, false, () => hookIdOf(sentParams(call).hook_id));
  sendJson(call.ctx, 200, groupHookEntity(await call.deps.groupHooks.getHook({ ...scope, hookId })));
}

/** 201 with the hook and, this once, its Standard Webhooks signing secret. */
async function createHook(call: IdCall) {
  const scope = await scopeOf(call);
  const attributes = await afterAccess(call, scope, true, () => attributesOf(call, true));
  const res = await call.deps.groupHooks.createHook({ ...scope, attributes });
  sendJson(call.ctx, 201, { ...groupHookEntity(res.hook!), signing_secret: res.signingSecret });
}

async function updateHook(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, attributes } = await afterAccess(call, scope, true, () => ({
    hookId: hookIdOf(sentParams(call).hook_id),
    attributes: attributesOf(call, false),
  }));
  const hook = await call.deps.groupHooks.updateHook({
    ...scope,
    hookId,
    attributes,
    ifUnmodifiedSince: unmodifiedSince(call.ctx.get("If-Unmodified-Since")),
  });
  sendJson(call.ctx, 200, groupHookEntity(hook));
}

async function deleteHook(call: IdCall) {
  const scope = await scopeOf(call);
  const hookId = await afterAccess(call, scope, true, () => hookIdOf(sentParams(call).hook_id));
  await call.deps.groupHooks.deleteHook({
    ...scope,
    hookId,
    ifUnmodifiedSince: unmodifiedSince(call.ctx.get("If-Unmodified-Since")),
  });
  call.ctx.status = 204;
}

async function rotateSigningSecret(call: IdCall) {
  const scope = await scopeOf(call);
  const hookId = await afterAccess(call, scope, true, () => hookIdOf(sentParams(call).hook_id));
  const res = await call.deps.groupHooks.rotateSigningSecret({ ...scope, hookId });
  sendJson(call.ctx, 201, { signing_secret: res.signingSecret });
}

const keyValueParams = { key: param.string(10_000), value: param.string(10_000) };

function setKey(kind: "url_variables" | "custom_headers") {
  return async function setHookKey(call: IdCall) {
    const scope = await scopeOf(call);
    const { hookId, p } = await afterAccess(call, scope, true, () => ({
      hookId: hookIdOf(sentParams(call).hook_id),
      p: parseParams(keyValueParams, sentParams(call)),
    }));
    const request = { ...scope, hookId, key: p.key, value: p.value };
    if (kind === "url_variables") await call.deps.groupHooks.setUrlVariable(request);
    else await call.deps.groupHooks.setCustomHeader(request);
    call.ctx.status = 204;
  };
}

function unsetKey(kind: "url_variables" | "custom_headers") {
  return async function unsetHookKey(call: IdCall) {
    const scope = await scopeOf(call);
    const { hookId, p } = await afterAccess(call, scope, true, () => ({
      hookId: hookIdOf(sentParams(call).hook_id),
      p: parseParams({ key: keyValueParams.key }, sentParams(call)),
    }));
    const request = { ...scope, hookId, key: p.key };
    if (kind === "url_variables") await call.deps.groupHooks.unsetUrlVariable(request);
    else await call.deps.groupHooks.unsetCustomHeader(request);
    call.ctx.status = 204;
  };
}

/** 201 {"message":"201 Created"} for a 2xx from the receiver; 422 otherwise (the service's error). */
async function testHook(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, trigger } = await afterAccess(call, scope, true, () => {
    const raw = sentParams(call);
    return {
      hookId: hookIdOf(raw.hook_id),
      trigger: parseParams({ trigger: param.oneOf(TEST_TRIGGERS) }, raw).trigger,
    };
  });
  await call.deps.groupHooks.getHook({ ...scope, hookId });
  await call.deps.limits.webHookCall("test", scope.group.groupId, call.actor.userId);
  await call.deps.groupHooks.testHook({ ...scope, hookId, trigger });
  sendJson(call.ctx, 201, { message: "201 Created" });
}

const eventsParams = {
  page: param.int32().optional(),
  per_page: param
    .integer()
    .refine((n) => n >= 1 && n <= 20)
    .optional(),
};

async function listHookEvents(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, p, status } = await afterAccess(call, scope, false, () => {
    const raw = sentParams(call);
    const p = parseParams(eventsParams, raw);
    const given =
      raw.status === undefined ? [] : Array.isArray(raw.status) ? raw.status : String(raw.status).split(",");
    const status = given.map(String).filter(Boolean);
    if (!status.every((s) => STATUS_VALUES.has(s))) throw paramError("status does not have a valid value");
    return { hookId: hookIdOf(raw.hook_id), p, status };
  });
  const res = await call.deps.groupHooks.listHookEvents({
    ...scope,
    hookId,
    status,
    page: { page: p.page ?? 1, perPage: p.per_page ?? 20, keyset: false, cursor: "" },
  });
  paginate(call.ctx, call.deps.config.CANOPY_EXTERNAL_URL, {
    offset: res.page!,
    itemsOnPage: res.events.length,
  });
  sendJson(call.ctx, 200, res.events.map(hookLogEntity));
}

async function resendHookEvent(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, hookLogId } = await afterAccess(call, scope, true, () => {
    const raw = sentParams(call);
    const logId = parseParams({ hook_log_id: param.integer() }, raw).hook_log_id;
    return { hookId: hookIdOf(raw.hook_id), hookLogId: logId > 0 ? logId : 0 };
  });
  await call.deps.groupHooks.getHook({ ...scope, hookId });
  await call.deps.limits.webHookCall("resend", scope.group.groupId, call.actor.userId);
  const res = await call.deps.groupHooks.resendHookEvent({ ...scope, hookId, hookLogId });
  sendJson(call.ctx, 201, { response_status: res.responseStatus });
}

export const groupHookEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/hooks",
    access: "user",
    params: idParams,
    handler: listHooks,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks",
    access: "user",
    params: idParams,
    handler: createHook,
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    handler: showHook,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    handler: updateHook,
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    handler: deleteHook,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/signing_secret",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    handler: rotateSigningSecret,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/test/:trigger",
    access: "user",
    params: { ...idParams, hook_id: pathParam, trigger: pathParam },
    handler: testHook,
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/hooks/:hook_id/events",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    handler: listHookEvents,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/events/:hook_log_id/resend",
    access: "user",
    params: { ...idParams, hook_id: pathParam, hook_log_id: pathParam },
    handler: resendHookEvent,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id/url_variables/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    handler: setKey("url_variables"),
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id/url_variables/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    handler: unsetKey("url_variables"),
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id/custom_headers/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    handler: setKey("custom_headers"),
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id/custom_headers/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    handler: unsetKey("custom_headers"),
  }),
];
