import { groupHookEntity } from "../entities/group-hook";
import { CreatedGroupHook, GroupHook, listOf, SigningSecret } from "../entities/schemas";
import { endpoint } from "../http/endpoint";
import { sendJson } from "../http/json";
import { paginate, paginationParams } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { afterAccess, idParams, pathParam, scopeOf, sentParams, type IdCall } from "./group-hook-access";
import { attributesOf, hookIdOf, unmodifiedSince } from "./group-hook-params";

/** Group webhooks: create, read, change and delete them (access rules: group-hook-access.ts; deliveries: group-hook-deliveries.ts). */

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
