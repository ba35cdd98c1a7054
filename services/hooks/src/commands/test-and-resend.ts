import { randomUUID } from "node:crypto";
import { apiError, grapeError, recordNotFound } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { interpolateUrl, urlHash } from "../delivery";
import { authorizeHooks } from "../domain/access";
import { alertStatus } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { hookGroupOf, hookProjectOf, hookUserOf } from "../events/payload-inputs";
import { buildTestPayload, NO_PROJECT_ANSWER } from "../payloads";
import { findNamespace, findProject, findUser, firstProjectIn } from "../store/copies";
import { findHook } from "../store/hooks";
import { findLog } from "../store/logs";
import { attempt, recordOutcome, type AttemptResult } from "./attempt";

/** The 422 of a delivery that got no answer: the transport's reason ("URL is blocked: ..."). */
const noAnswer = (result: AttemptResult) =>
  result.outcome.kind === "error" ? apiError(422, result.outcome.message) : undefined;

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
  // The copies lag the group's creation: answered as a group without projects.
  if (!group) throw apiError(NO_PROJECT_ANSWER.status, NO_PROJECT_ANSWER.body.message);
  const sample = buildTestPayload({
    trigger: req.trigger,
    group: hookGroupOf(group),
    project: project ? hookProjectOf(project) : null,
    user: user
      ? hookUserOf(user)
      : { id: req.actor!.userId, username: req.actor!.username, name: req.actor!.username, email: "" },
    instanceUrl: deps.config.CANOPY_EXTERNAL_URL,
  });
  if (!sample.ok)
    throw "error" in sample.body
      ? grapeError(sample.status, sample.body.error)
      : apiError(sample.status, sample.body.message);
  const result = await attempt(deps, hook, {
    trigger: sample.trigger,
    payload: sample.payload,
    idempotencyKey: randomUUID(),
    eventUuid: randomUUID(),
  });
  await recordOutcome(deps, hook.id, result.ok);
  const failed = noAnswer(result);
  if (failed) throw failed;
  const { status, body } = result.outcome as Extract<AttemptResult["outcome"], { kind: "response" }>;
  if (status < 200 || status > 299) throw apiError(422, body);
  return { responseStatus: status };
}

/**
 * POST .../events/:hook_log_id/resend (app/services/web_hooks/events/resend_service.rb): the logged
 * request data again, with the log's Idempotency-Key, now and not forced. The headers are built
 * from the hook again (the log's copy has the token and custom headers redacted). Any HTTP answer
 * is a success ({"response_status": code}); no answer is 422 with the reason.
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
  const url = interpolateUrl(hook.url, hook.url_variables);
  if (!url.ok || urlHash(url.url) !== log.url_hash)
    throw apiError(422, "The hook URL has changed, and this log entry cannot be retried");
  if (alertStatus(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE) !== "executable")
    throw apiError(422, "Hook disabled");
  const result = await attempt(deps, hook, {
    trigger: log.trigger,
    payload: log.request_data,
    idempotencyKey: log.idempotency_key,
    eventUuid: randomUUID(),
  });
  await recordOutcome(deps, hook.id, result.ok);
  const failed = noAnswer(result);
  if (failed) throw failed;
  return { responseStatus: (result.outcome as { status: number }).status };
}
