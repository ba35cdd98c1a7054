import { GITLAB_VERSION, SpanKind, SpanStatusCode, trace, withTransaction } from "@canopy/kit";
import {
  buildDeliveryHeaders,
  buildLogEntry,
  interpolateUrl,
  isSuccessfulStatus,
  sendWebhook,
  type DeliveryLogEntry,
  type SendOutcome,
} from "../delivery";
import { afterFailure, alertStatus } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { eventHeaderOf, renderCustomTemplate, type HookTrigger } from "../payloads";
import { setFailureState, type Hook } from "../store/hooks";
import { insertLog } from "../store/logs";
import { urlGuardOptions } from "./outbound-guard";

/** What one attempt sends besides the hook's own settings. */
export interface AttemptInput {
  /** The trigger scope ("member_hooks"): the log's `trigger`, and X-Gitlab-Event. */
  trigger: string;
  /** The payload before the hook's custom template. */
  payload: unknown;
  idempotencyKey: string;
  eventUuid: string;
}

export interface SentAttempt {
  outcome: SendOutcome;
  entry: DeliveryLogEntry;
  /** When it ended: its log row's created_at. */
  at: Date;
  /** GitLab's success: a final 2xx or 3xx. */
  ok: boolean;
}

export interface AttemptResult extends SentAttempt {
  logId: number;
}

const tracer = trace.getTracer("canopy-hooks");

/** Fails before anything is sent (a missing URL variable, a template that does not render). */
const notSent = (message: string): SendOutcome => ({
  kind: "error",
  failure: "invalid_request",
  message,
  durationMs: 0,
});

/** One attempt (below), logged at once: a test or a resend, whose answer names the log row. */
export async function attempt(deps: Deps, hook: Hook, input: AttemptInput): Promise<AttemptResult> {
  const sent = await sendAttempt(deps, hook, input);
  const logId = await insertLog(deps.pool, {
    hookId: hook.id,
    idempotencyKey: input.idempotencyKey,
    ...sent,
  });
  return { ...sent, logId };
}

/**
 * One HTTP attempt of a hook (WebHookService#execute): the URL interpolated, the payload through
 * the custom template, GitLab's headers rebuilt from the hook (the token and custom headers are
 * only in the hook: logs keep them redacted) with a fresh X-Gitlab-Webhook-UUID and signature, sent
 * through the SSRF guard as the settings stand now; its log entry (redacted and truncated) for the
 * caller to keep.
 */
export async function sendAttempt(deps: Deps, hook: Hook, input: AttemptInput): Promise<SentAttempt> {
  const interpolation = interpolateUrl(hook.url, hook.url_variables);
  const payload = input.payload as Record<string, unknown>;
  const rendered = hook.custom_webhook_template
    ? renderCustomTemplate(hook.custom_webhook_template, payload)
    : { ok: true as const, payload };
  const body = rendered.ok ? JSON.stringify(rendered.payload) : "";
  const headers = buildDeliveryHeaders({
    event: eventHeaderOf(input.trigger as HookTrigger),
    gitlabVersion: GITLAB_VERSION,
    instanceUrl: deps.config.CANOPY_EXTERNAL_URL,
    idempotencyKey: input.idempotencyKey,
    eventUuid: input.eventUuid,
    token: hook.token,
    customHeaders: hook.custom_headers,
    signing: { secret: hook.signing_secret, body },
  });
  let outcome: SendOutcome;
  if (!interpolation.ok) outcome = notSent(interpolation.message);
  else if (!rendered.ok) outcome = notSent(rendered.message);
  else {
    const url = interpolation.url;
    outcome = await traced(hook, input.trigger, () =>
      sendWebhook({
        url,
        body,
        headers: headers.sent,
        guard: urlGuardOptions(deps),
        verifyTls: hook.enable_ssl_verification,
        timeoutMs: deps.config.CANOPY_HOOK_TIMEOUT_SECONDS * 1000,
      }),
    );
  }
  const entry = buildLogEntry({
    trigger: input.trigger,
    urlTemplate: hook.url,
    interpolatedUrl: interpolation.ok ? interpolation.url : hook.url,
    urlVariables: hook.url_variables,
    requestHeaders: headers.logged,
    // GitLab logs the event's data (not the template's output), and nothing when the template failed.
    requestData: rendered.ok ? payload : {},
    outcome,
  });
  return { outcome, entry, at: new Date(), ok: isSuccessfulStatus(entry.responseStatus) };
}

/**
 * The HTTP send as a client span, a child of whatever is active: the event's handling for a delivery
 * (the worker restores it from the delivery row), the API call for a test or a resend. Only the hook
 * id, the trigger and the outcome go on it: the URL may hold credentials (userinfo, a token in the
 * query, interpolated URL variables), and the headers hold the hook's token.
 */
async function traced(hook: Hook, trigger: string, send: () => Promise<SendOutcome>): Promise<SendOutcome> {
  const span = tracer.startSpan("POST webhook", {
    kind: SpanKind.CLIENT,
    attributes: { "http.request.method": "POST", "canopy.hook.id": hook.id, "canopy.hook.trigger": trigger },
  });
  try {
    const outcome = await send();
    if (outcome.kind === "response") {
      span.setAttribute("http.response.status_code", outcome.status);
      if (!isSuccessfulStatus(String(outcome.status))) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute("error.type", outcome.failure);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return outcome;
  } finally {
    span.end();
  }
}

/**
 * GitLab's auto-disabling after a delivery's outcome (app/models/concerns/web_hooks/auto_disabling.rb),
 * under the hook's row lock, skipped when another writer holds it (as GitLab skips on a taken lease):
 * a success resets the hook; a failure backs it off, only while it is executable (failed forced
 * tests of a disabled hook count for nothing).
 */
export async function recordOutcome(deps: Deps, hookId: number, ok: boolean): Promise<void> {
  if (!deps.config.CANOPY_HOOK_AUTO_DISABLE) return;
  await withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<{ recent_failures: number; disabled_until: Date | null }>(
      "SELECT recent_failures, disabled_until FROM hooks WHERE id = $1 FOR UPDATE SKIP LOCKED",
      [hookId],
    );
    const state = rows[0];
    if (!state) return;
    if (ok) {
      if (state.recent_failures || state.disabled_until)
        await setFailureState(tx, hookId, { recent_failures: 0, disabled_until: null });
      return;
    }
    if (alertStatus(state, true) !== "executable") return;
    await setFailureState(tx, hookId, afterFailure(state));
  });
}
