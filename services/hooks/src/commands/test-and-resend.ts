import { randomUUID } from "node:crypto";
import { apiError, recordNotFound } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { authorizeHooks } from "../domain/access";
import { alertStatus, interpolatedUrl } from "../domain/hook-rules";
import { TRIGGER_OF, type Flag } from "../domain/flags";
import type { Deps } from "../deps";
import { findNamespace, findProject, findUser, firstProjectIn } from "../store/copies";
import { findHook } from "../store/hooks";
import { findLog } from "../store/logs";
import { attempt, recordOutcome, succeeded, urlHash } from "./attempt";

/**
 * POST .../test/:trigger (lib/api/hooks/trigger_test.rb, ee/app/services/test_hooks/group_service.rb):
 * a sample payload of the trigger built from the group's first project, sent at once even to a
 * disabled hook, logged inline. 2xx: success (the hook is re-enabled); any other answer: 422 with the
 * receiver's body; no answer: 422 with the reason.
 */
export async function testHook(deps: Deps, req: hooks.TestHookRequest): Promise<hooks.TestHookResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const hook = await findHook(deps.pool, deps.secrets, groupId, req.hookId);
  if (!hook) throw recordNotFound();
  const projectId = await firstProjectIn(deps.pool, groupId);
  const [group, project, user] = await Promise.all([
    findNamespace(deps.pool, groupId),
    projectId === undefined ? undefined : findProject(deps.pool, projectId),
    findUser(deps.pool, req.actor!.userId),
  ]);
  if (!group || !project) throw apiError(422, "Ensure the group has a project with commits.");
  const payload = deps.payloads.test(req.trigger, {
    group,
    project,
    user: user ?? {
      id: req.actor!.userId,
      username: req.actor!.username,
      name: req.actor!.username,
      email: "",
    },
  });
  if ("unavailable" in payload) throw apiError(422, String(payload.unavailable));
  const { result } = await attempt(deps, hook, {
    trigger: TRIGGER_OF[req.trigger as Flag] ?? req.trigger,
    payload,
    idempotencyKey: randomUUID(),
    eventUuid: randomUUID(),
  });
  await recordOutcome(deps, hook.id, succeeded(result));
  if (result.status === null) throw apiError(422, result.internalError ?? "internal error");
  if (result.status < 200 || result.status > 299) throw apiError(422, result.responseBody);
  return { responseStatus: result.status };
}

/**
 * POST .../events/:hook_log_id/resend (app/services/web_hooks/events/resend_service.rb): the logged
 * request data again, with the log's Idempotency-Key, now and not forced. Any HTTP answer is a
 * success ({"response_status": code}); no answer is 422 with the reason.
 */
export async function resendHookEvent(
  deps: Deps,
  req: hooks.ResendHookEventRequest,
): Promise<hooks.ResendHookEventResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const hook = await findHook(deps.pool, deps.secrets, groupId, req.hookId);
  if (!hook) throw recordNotFound();
  const log = await findLog(deps.pool, hook.id, req.hookLogId);
  if (!log) throw recordNotFound();
  const url = interpolatedUrl(hook);
  if (url === undefined || urlHash(url) !== log.url_hash)
    throw apiError(422, "The hook URL has changed, and this log entry cannot be retried");
  if (alertStatus(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE) !== "executable")
    throw apiError(422, "Hook disabled");
  const { result } = await attempt(deps, hook, {
    trigger: log.trigger,
    payload: log.request_data,
    idempotencyKey: log.idempotency_key,
    eventUuid: randomUUID(),
  });
  await recordOutcome(deps, hook.id, succeeded(result));
  if (result.status === null) throw apiError(422, result.internalError ?? "internal error");
  return { responseStatus: result.status };
}
