import { hookLogEntity } from "../entities/group-hook";
import { HookLog, HookResendAnswer, HookTestAnswer, listOf } from "../entities/schemas";
import { endpoint } from "../http/endpoint";
import { paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { paginate } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { afterAccess, idParams, pathParam, scopeOf, sentParams, type IdCall } from "./group-hook-access";
import { HOOK_TEST_TRIGGERS } from "@canopy/kit";
import { hookIdOf, STATUS_VALUES } from "./group-hook-params";

/** A group hook's deliveries: a test delivery, the delivery log and a resend (GitLab lib/api/hooks/*.rb). */

async function testHook(call: IdCall) {
  const scope = await scopeOf(call);
  const { hookId, trigger } = await afterAccess(call, scope, true, () => {
    const raw = sentParams(call);
    return {
      hookId: hookIdOf(raw.hook_id),
      trigger: parseParams({ trigger: param.oneOf(HOOK_TEST_TRIGGERS) }, raw).trigger,
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

export const groupHookDeliveryEndpoints = [
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
];
