import { context, propagation, ROOT_CONTEXT } from "@canopy/kit";
import { alertStatus } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { recordOutcome, sendAttempt } from "../commands/attempt";
import { DEFAULT_RETRY_POLICY, nextRetry, type RetryPolicy, type SendOutcome } from "../delivery";
import {
  finishDeliveries,
  finishDelivery,
  finishRuns,
  postponeDelivery,
  releaseDeliveries,
  retryDelivery,
  type DeliveryRow,
} from "../store/deliveries";
import { findHooksByIds, type Hook } from "../store/hooks";
import type { LoggedAttempt } from "../store/logs";
import { countAttempt, countGivenUp } from "./delivery-metrics";

/** A claim's lease: one attempt's timeout and a margin (a dead worker's rows come back after it). */
export const leaseSecondsOf = (deps: Deps) => deps.config.CANOPY_HOOK_TIMEOUT_SECONDS + 30;

/** What sending one run came to, for the statement that finishes them all (finishRuns). */
interface SentRun {
  hook: Hook;
  run: DeliveryRow[];
  logged: LoggedAttempt[];
  delivered: number[];
  /** How many of the run were sent; the rest goes back unspent. */
  sent: number;
  failure?: { d: DeliveryRow; outcome: SendOutcome; status: string };
  /** A send that threw: the run's rest stays leased and goes out again after the lease. */
  thrown?: unknown;
}

/**
 * A claim's runs (store/deliveries.ts claimRuns), each of another hook: sent side by side, each in
 * order, then every attempt logged and every success finished in one statement. A run's first
 * failure is retried later or finished as now, and its unsent rest goes back unspent to wait behind
 * it (ordering).
 */
export async function deliverRuns(deps: Deps, runs: DeliveryRow[][]): Promise<void> {
  const hooks = await findHooksByIds(
    deps.pool,
    deps.secrets,
    runs.map((run) => run[0]!.hook_id),
  );
  const sending = runs.map((run) => sendRun(deps, hooks.get(run[0]!.hook_id), run));
  const settled = await Promise.allSettled(sending);
  const sent = settled.flatMap((s) => (s.status === "fulfilled" && s.value ? [s.value] : []));
  // Also when a send threw: what was delivered must not be sent again.
  await finishRuns(
    deps.pool,
    sent.flatMap((s) => s.logged),
    sent.flatMap((s) => s.delivered),
  );
  for (const s of sent) if (s.thrown === undefined) await afterRun(deps, s);
  const thrown = [
    ...settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : [])),
    ...sent.flatMap((s) => (s.thrown === undefined ? [] : [s.thrown])),
  ];
  if (thrown.length) throw thrown[0];
}

/**
 * One run of one hook, in order; undefined when the hook's state decided it without a send (gone,
 * disabled for good: dropped; disabled for now: postponed). A run also stops while another attempt
 * could still outlast the lease, so a slow receiver never lets the lease run out under a delivery
 * another worker would then send again.
 */
async function sendRun(deps: Deps, hook: Hook | undefined, run: DeliveryRow[]): Promise<SentRun | undefined> {
  const ids = run.map((d) => d.id);
  if (!hook) return void (await finishDeliveries(deps.pool, ids));
  const status = alertStatus(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE);
  if (status === "disabled") {
    deps.log.info({ hook_id: hook.id, deliveries: run.length }, "hook disabled; deliveries dropped");
    return void (await finishDeliveries(deps.pool, ids));
  }
  if (status === "temporarily_disabled") {
    for (const d of run) await postponeDelivery(deps.pool, d.id, hook.disabled_until!);
    return undefined;
  }
  const sendUntil = Date.now() + (leaseSecondsOf(deps) - deps.config.CANOPY_HOOK_TIMEOUT_SECONDS - 5) * 1000;
  const result: SentRun = { hook, run, logged: [], delivered: [], sent: 0 };
  try {
    await sendInOrder(deps, result, sendUntil);
  } catch (err) {
    result.thrown = err;
  }
  return result;
}

async function sendInOrder(deps: Deps, result: SentRun, sendUntil: number): Promise<void> {
  const { hook, run } = result;
  for (const d of run) {
    if (result.sent > 0 && Date.now() > sendUntil) break;
    result.sent++;
    // The send continues the trace of the event that fired it (kept in the row: this runs later,
    // from a claim, in no request's context).
    const fired = propagation.extract(ROOT_CONTEXT, d.trace_context ?? {});
    const { outcome, entry, ok, at } = await context.with(fired, () =>
      sendAttempt(deps, hook, {
        trigger: d.trigger,
        payload: d.payload,
        idempotencyKey: d.idempotency_key,
        eventUuid: d.event_uuid,
      }),
    );
    result.logged.push({ hookId: hook.id, idempotencyKey: d.idempotency_key, entry, at });
    countAttempt(d.trigger, outcome);
    if (!ok) {
      result.failure = { d, outcome, status: entry.responseStatus };
      break;
    }
    result.delivered.push(d.id);
  }
}

/** A finished run's rest: its unsent deliveries back, the hook's failure count, its failure. */
async function afterRun(deps: Deps, s: SentRun): Promise<void> {
  // The unsent rest goes back behind the failed one, which is still leased and so holds it back.
  await releaseDeliveries(
    deps.pool,
    s.run.slice(s.sent).map((r) => r.id),
  );
  // A success resets GitLab's failure count: nothing to do for a hook that had none.
  if (s.delivered.length && (s.hook.recent_failures || s.hook.disabled_until))
    await recordOutcome(deps, s.hook.id, true);
  if (s.failure) await failed(deps, s.hook.id, s.failure.d, s.failure.outcome, s.failure.status);
}

/** CANOPY_HOOK_RETRY_ATTEMPTS and CANOPY_HOOK_RETRY_BASE_SECONDS over the runtime's caps. */
const retryPolicy = (deps: Deps): RetryPolicy => ({
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: deps.config.CANOPY_HOOK_RETRY_ATTEMPTS,
  baseDelayMs: deps.config.CANOPY_HOOK_RETRY_BASE_SECONDS * 1000,
});

/** A delivery that failed: tried again later, or for the last time (auto-disabling counts it). */
async function failed(
  deps: Deps,
  hookId: number,
  d: DeliveryRow,
  outcome: SendOutcome,
  responseStatus: string,
): Promise<void> {
  const retry = nextRetry(d.attempts, outcome, { policy: retryPolicy(deps) });
  if (retry.retry) return retryDelivery(deps.pool, d.id, retry.delayMs);
  deps.log.warn(
    { hook_id: hookId, delivery_id: d.id, attempts: d.attempts, status: responseStatus },
    "hook delivery failed for good",
  );
  countGivenUp(d.trigger);
  await finishDelivery(deps.pool, d.id);
  await recordOutcome(deps, hookId, false);
}
