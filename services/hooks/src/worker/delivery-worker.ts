import {
  context,
  propagation,
  ROOT_CONTEXT,
  type BackgroundTask,
  type PoolClient,
  type Timer,
} from "@canopy/kit";
import { alertStatus } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { recordOutcome, sendAttempt } from "../commands/attempt";
import { DEFAULT_RETRY_POLICY, nextRetry, type RetryPolicy, type SendOutcome } from "../delivery";
import {
  claimRun,
  DELIVERIES_CHANNEL,
  finishDeliveries,
  finishDelivery,
  finishRun,
  nextDueAt,
  postponeDelivery,
  releaseDeliveries,
  retryDelivery,
  type DeliveryRow,
} from "../store/deliveries";
import { findHookById } from "../store/hooks";
import type { LoggedAttempt } from "../store/logs";
import { pruneTombstones } from "../store/copies";
import { pruneLogs } from "../store/logs";
import { countAttempt, countGivenUp } from "./delivery-metrics";

/**
 * The delivery workers of one replica (CANOPY_HOOK_WORKERS loops). Every replica runs them; they
 * share the `deliveries` table and never take the same row (store/deliveries.ts claimRun). An idle
 * worker does not poll PostgreSQL in a tight loop: it sleeps until a NOTIFY (the consumer's commit
 * of new deliveries, on any replica), the next retry falls due, or CANOPY_HOOK_POLL_MS passes.
 *
 * Each attempt is logged. A failure that is worth retrying (no answer, 429, 5xx) is tried again up
 * to CANOPY_HOOK_RETRY_ATTEMPTS times with exponential backoff and jitter from
 * CANOPY_HOOK_RETRY_BASE_SECONDS, or after the receiver's Retry-After; GitLab's auto-disabling
 * counts the delivery once, after its last attempt. A delivery of a temporarily disabled hook waits
 * until the hook is executable again; one of a hook disabled for good is dropped.
 *
 * A worker takes a hook's due deliveries as a run (up to RUN_LIMIT, in event order) and sends them one
 * after another, recording the successes together: per-hook ordering allows one delivery of a hook
 * in flight, so without runs a busy hook went only as fast as one claim-send-record cycle.
 */
export function deliveryWorkers(deps: Deps): BackgroundTask[] {
  const count = deps.config.CANOPY_HOOK_WORKERS;
  if (!count) return [];
  return [{ name: "hook delivery workers", start: () => startWorkers(deps, count) }];
}

async function startWorkers(deps: Deps, count: number): Promise<() => Promise<void>> {
  let running = true;
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  const listener: PoolClient = await deps.pool.connect();
  listener.on("notification", wakeAll);
  // A broken LISTEN connection must not take the process down: the poll still finds the work.
  listener.on("error", (err) => deps.log.warn({ err }, "hook delivery listener failed; polling only"));
  await listener.query(`LISTEN ${DELIVERIES_CHANNEL}`);

  const nap = async () => {
    const next = await nextDueAt(deps.pool).catch(() => null);
    const untilDue = next ? next.getTime() - Date.now() : Infinity;
    const ms = Math.max(10, Math.min(deps.config.CANOPY_HOOK_POLL_MS, untilDue));
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });
  };

  const loop = async () => {
    while (running) {
      try {
        const run = await claimRun(
          deps.pool,
          RUN_LIMIT,
          leaseSecondsOf(deps),
          deps.config.CANOPY_HOOK_ORDER_HOLD_SECONDS,
        );
        if (!run.length) {
          await nap();
          continue;
        }
        await deliverRun(deps, run);
      } catch (err) {
        deps.log.error({ err }, "hook delivery worker failed; retrying");
        await nap();
      }
    }
  };
  const loops = Array.from({ length: count }, () => loop());
  return async () => {
    running = false;
    wakeAll();
    await Promise.all(loops);
    await listener.query(`UNLISTEN ${DELIVERIES_CHANNEL}`).catch(() => undefined);
    listener.release();
  };
}

/** CANOPY_HOOK_RETRY_ATTEMPTS and CANOPY_HOOK_RETRY_BASE_SECONDS over the runtime's caps. */
const retryPolicy = (deps: Deps): RetryPolicy => ({
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: deps.config.CANOPY_HOOK_RETRY_ATTEMPTS,
  baseDelayMs: deps.config.CANOPY_HOOK_RETRY_BASE_SECONDS * 1000,
});

/** The most deliveries of one hook a worker claims at once. */
const RUN_LIMIT = 50;
/** A claim's lease: one attempt's timeout and a margin (a dead worker's rows come back after it). */
const leaseSecondsOf = (deps: Deps) => deps.config.CANOPY_HOOK_TIMEOUT_SECONDS + 30;

/**
 * One claimed run of a hook's deliveries, in order: each sent; the successes finished together. The
 * first that fails is retried later or finished as now, and the unsent rest goes back unspent to wait
 * behind it (ordering). A run also stops while another attempt could still outlast the lease, so a
 * slow receiver never lets the lease run out under a delivery another worker would then send again.
 */
export async function deliverRun(deps: Deps, run: DeliveryRow[]): Promise<void> {
  const hook = await findHookById(deps.pool, deps.secrets, run[0]!.hook_id);
  if (!hook)
    return finishDeliveries(
      deps.pool,
      run.map((d) => d.id),
    );
  const status = alertStatus(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE);
  if (status === "disabled") {
    deps.log.info({ hook_id: hook.id, deliveries: run.length }, "hook disabled; deliveries dropped");
    return finishDeliveries(
      deps.pool,
      run.map((d) => d.id),
    );
  }
  if (status === "temporarily_disabled") {
    for (const d of run) await postponeDelivery(deps.pool, d.id, hook.disabled_until!);
    return;
  }
  const sendUntil = Date.now() + (leaseSecondsOf(deps) - deps.config.CANOPY_HOOK_TIMEOUT_SECONDS - 5) * 1000;
  const delivered: number[] = [];
  const logged: LoggedAttempt[] = [];
  let failure: { d: DeliveryRow; outcome: SendOutcome; status: string } | undefined;
  let sent = 0;
  try {
    for (const d of run) {
      if (sent > 0 && Date.now() > sendUntil) break;
      sent++;
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
      logged.push({ idempotencyKey: d.idempotency_key, entry, at });
      countAttempt(d.trigger, outcome);
      if (!ok) {
        failure = { d, outcome, status: entry.responseStatus };
        break;
      }
      delivered.push(d.id);
    }
  } finally {
    // Also when a send threw: what was delivered must not be sent again.
    await finishRun(deps.pool, hook.id, logged, delivered);
  }
  // The unsent rest goes back behind the failed one, which is still leased and so holds it back.
  await releaseDeliveries(
    deps.pool,
    run.slice(sent).map((r) => r.id),
  );
  // A success resets GitLab's failure count: nothing to do for a hook that had none.
  if (delivered.length && (hook.recent_failures || hook.disabled_until))
    await recordOutcome(deps, hook.id, true);
  if (failure) await failed(deps, hook.id, failure.d, failure.outcome, failure.status);
}

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

/** Prunes log rows past the retention, on one replica at a time (a try-lock: the others skip). */
export const pruneTimer = (deps: Deps): Timer => ({
  name: "hook log pruning",
  everyMs: deps.config.CANOPY_HOOK_PRUNE_MS || 2_147_483_647,
  afterStart: deps.config.CANOPY_HOOK_PRUNE_MS > 0,
  run: async () => {
    if (!deps.config.CANOPY_HOOK_PRUNE_MS) return;
    const client = await deps.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended('canopy-hooks-prune', 0)) AS ok",
      );
      if (!rows[0]!.ok) return;
      try {
        let pruned = 0;
        for (let n = 5_000; n === 5_000; pruned += n)
          n = await pruneLogs(client, deps.config.CANOPY_HOOK_LOG_RETENTION_DAYS, 5_000);
        if (pruned) deps.log.info({ pruned }, "hook logs pruned");
        await pruneTombstones(client, deps.config.CANOPY_HOOK_LOG_RETENTION_DAYS);
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtextextended('canopy-hooks-prune', 0))");
      }
    } finally {
      client.release();
    }
  },
});
