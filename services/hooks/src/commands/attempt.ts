import { createHash } from "node:crypto";
import { withTransaction } from "@canopy/kit";
import { afterFailure, alertStatus, interpolatedUrl } from "../domain/hook-rules";
import type { Deps } from "../deps";
import type { OutboundRequest, OutboundResult } from "../outbound";
import { setFailureState, type Hook } from "../store/hooks";
import { insertLog } from "../store/logs";

/** What one attempt sends besides the hook's own settings. */
export interface AttemptInput {
  trigger: string;
  payload: unknown;
  idempotencyKey: string;
  eventUuid: string;
}

/** SHA-256 of the interpolated URL, kept with each log row (a resend refuses a changed URL). */
export const urlHash = (url: string) => createHash("sha256").update(url).digest("hex");

/** Whether GitLab counts the answer as a success: a final 2xx or 3xx. */
export const succeeded = (r: OutboundResult) => r.status !== null && r.status >= 200 && r.status < 400;

/**
 * One HTTP attempt of a hook (WebHookService#execute): sends, then writes its log row (GitLab's
 * WebHookLog, redacted and truncated by the outbound runtime). Returns the result and the log id.
 */
export async function attempt(deps: Deps, hook: Hook, input: AttemptInput) {
  const url = interpolatedUrl(hook);
  const request: OutboundRequest = {
    url: url ?? hook.url,
    urlTemplate: hook.url,
    urlVariables: hook.url_variables,
    trigger: input.trigger,
    payload: input.payload,
    customWebhookTemplate: hook.custom_webhook_template,
    token: hook.token,
    customHeaders: hook.custom_headers,
    signingSecret: hook.signing_secret,
    idempotencyKey: input.idempotencyKey,
    eventUuid: input.eventUuid,
    verifyTls: hook.enable_ssl_verification,
  };
  const result: OutboundResult =
    url === undefined
      ? {
          status: null,
          internalError: "Invalid URL template. Missing keys",
          requestHeaders: {},
          requestData: input.payload,
          responseHeaders: {},
          responseBody: "",
          durationSeconds: 0,
        }
      : await deps.outbound.send(
          request,
          deps.settings.current(),
          deps.config.CANOPY_HOOK_TIMEOUT_SECONDS * 1000,
        );
  const entry = deps.outbound.logEntry(request, result);
  const logId = await insertLog(
    deps.pool,
    hook.id,
    input.trigger,
    urlHash(url ?? hook.url),
    input.idempotencyKey,
    entry,
  );
  return { result, logId };
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
