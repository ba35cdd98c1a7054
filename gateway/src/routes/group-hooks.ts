import type { common, hooks } from "@canopy/protos";
import { groupHookEntity, hookLogEntity } from "../entities/group-hook";
import {
  CreatedGroupHook,
  GroupHook,
  HookLog,
  HookResendAnswer,
  HookTestAnswer,
  listOf,
  SigningSecret,
} from "../entities/schemas";
import { endpoint, type Call } from "../http/endpoint";
import { paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { paginate, paginationParams } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { rawParams } from "./context";
import { attributesOf, hookIdOf, STATUS_VALUES, TEST_TRIGGERS, unmodifiedSince } from "./group-hook-params";
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
  const attributes = await afterAccess(call, scope, true, () => attributesOf(sentParams(call), true));
  const res = await call.deps.groupHooks.createHook({ ...scope, attributes });
  sendJson(call.ctx, 201, { ...groupHookEntity(res.hook!), signing_secret: res.signingSecret });
}

async function updateHook(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, attributes } = await afterAccess(call, scope, true, () => ({
    hookId: hookIdOf(sentParams(call).hook_id),
    attributes: attributesOf(sentParams(call), false),
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
// Each its own name: the API document's operation ids and the profiles come from handler names.
const named = <F extends (call: IdCall) => Promise<void>>(name: string, f: F): F =>
  Object.defineProperty(f, "name", { value: name });
const setUrlVariable = named("setUrlVariable", setKey("url_variables"));
const unsetUrlVariable = named("unsetUrlVariable", unsetKey("url_variables"));
const setCustomHeader = named("setCustomHeader", setKey("custom_headers"));
const unsetCustomHeader = named("unsetCustomHeader", unsetKey("custom_headers"));

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
    responses: { 200: listOf(GroupHook) },
    handler: listHooks,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks",
    access: "user",
    params: idParams,
    responses: { 201: CreatedGroupHook },
    handler: createHook,
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    responses: { 200: GroupHook },
    handler: showHook,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    responses: { 200: GroupHook },
    handler: updateHook,
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    responses: { 204: null },
    handler: deleteHook,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/signing_secret",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    responses: { 201: SigningSecret },
    handler: rotateSigningSecret,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/test/:trigger",
    access: "user",
    params: { ...idParams, hook_id: pathParam, trigger: pathParam },
    responses: { 201: HookTestAnswer },
    handler: testHook,
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/hooks/:hook_id/events",
    access: "user",
    params: { ...idParams, hook_id: pathParam },
    responses: { 200: listOf(HookLog) },
    handler: listHookEvents,
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/hooks/:hook_id/events/:hook_log_id/resend",
    access: "user",
    params: { ...idParams, hook_id: pathParam, hook_log_id: pathParam },
    responses: { 201: HookResendAnswer },
    handler: resendHookEvent,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id/url_variables/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    responses: { 204: null },
    handler: setUrlVariable,
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id/url_variables/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    responses: { 204: null },
    handler: unsetUrlVariable,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/hooks/:hook_id/custom_headers/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    responses: { 204: null },
    handler: setCustomHeader,
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/hooks/:hook_id/custom_headers/:key",
    access: "user",
    params: { ...idParams, hook_id: pathParam, key: pathParam },
    responses: { 204: null },
    handler: unsetCustomHeader,
  }),
];
