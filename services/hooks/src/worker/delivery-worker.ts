import type { BackgroundTask, PoolClient, Timer } from "@canopy/kit";
import { alertStatus } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { attempt, recordOutcome } from "../commands/attempt";
import { DEFAULT_RETRY_POLICY, nextRetry, type RetryPolicy } from "../delivery";
import {
  claimDue,
  DELIVERIES_CHANNEL,
  finishDelivery,
  nextDueAt,
  postponeDelivery,
  retryDelivery,
  type DeliveryRow,
} from "../store/deliveries";
import { findHookById } from "../store/hooks";
import { pruneLogs } from "../store/logs";

/**
 * The delivery workers of one replica (CANOPY_HOOK_WORKERS loops). Every replica runs them; they
 * share the `deliveries` table and never take the same row (store/deliveries.ts claimDue). An idle
 * worker does not poll PostgreSQL in a tight loop: it sleeps until a NOTIFY (the consumer's commit
 * of new deliveries, on any replica), the next retry falls due, or CANOPY_HOOK_POLL_MS passes.
 *
 * Each attempt is logged. A failure that is worth retrying (no answer, 429, 5xx) is tried again up
 * to CANOPY_HOOK_RETRY_ATTEMPTS times with exponential backoff and jitter from
 * CANOPY_HOOK_RETRY_BASE_SECONDS, or after the receiver's Retry-After; GitLab's auto-disabling
 * counts the delivery once, after its last attempt. A delivery of a temporarily disabled hook waits
 * until the hook is executable again; one of a hook disabled for good is dropped.
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
        const claimed = await claimDue(
          deps.pool,
          1,
          deps.config.CANOPY_HOOK_TIMEOUT_SECONDS + 30,
          deps.config.CANOPY_HOOK_ORDER_HOLD_SECONDS,
        );
        if (!claimed.length) {
          await nap();
          continue;
        }
        for (const delivery of claimed) await deliver(deps, delivery);
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

/** One claimed delivery: sent, then finished, retried later or postponed. */
export async function deliver(deps: Deps, d: DeliveryRow): Promise<void> {
  const hook = await findHookById(deps.pool, deps.secrets, d.hook_id);
  if (!hook) return finishDelivery(deps.pool, d.id);
  const status = alertStatus(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE);
  if (status === "disabled") {
    deps.log.info({ hook_id: hook.id, delivery_id: d.id }, "hook disabled; delivery dropped");
    return finishDelivery(deps.pool, d.id);
  }
  if (status === "temporarily_disabled") return postponeDelivery(deps.pool, d.id, hook.disabled_until!);
  const { outcome, entry, ok } = await attempt(deps, hook, {
    trigger: d.trigger,
    payload: d.payload,
    idempotencyKey: d.idempotency_key,
    eventUuid: d.event_uuid,
  });
  if (ok) {
    await finishDelivery(deps.pool, d.id);
    return recordOutcome(deps, hook.id, true);
  }
  const retry = nextRetry(d.attempts, outcome, { policy: retryPolicy(deps) });
  if (retry.retry) return retryDelivery(deps.pool, d.id, retry.delayMs);
  deps.log.warn(
    { hook_id: hook.id, delivery_id: d.id, attempts: d.attempts, status: entry.responseStatus },
    "hook delivery failed for good",
  );
  await finishDelivery(deps.pool, d.id);
  await recordOutcome(deps, hook.id, false);
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
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtextextended('canopy-hooks-prune', 0))");
      }
    } finally {
      client.release();
    }
  },
});
