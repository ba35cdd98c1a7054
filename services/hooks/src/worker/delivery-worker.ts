import { createPool, type BackgroundTask, type PoolClient, type Timer } from "@canopy/kit";
import type { Deps } from "../deps";
import { claimRuns, DELIVERIES_CHANNEL, nextDueAt } from "../store/deliveries";
import { pruneTombstones } from "../store/copies";
import { pruneLogs } from "../store/logs";
import { deliverRuns, leaseSecondsOf } from "./send-runs";

/**
 * The delivery workers of one replica (CANOPY_HOOK_WORKERS loops). Every replica runs them; they
 * share the `deliveries` table and never take the same row (store/deliveries.ts claimRuns). An idle
 * worker does not poll PostgreSQL in a tight loop: it sleeps until a NOTIFY (the consumer's commit
 * of new deliveries, on any replica), the next retry falls due, or CANOPY_HOOK_POLL_MS passes. A
 * NOTIFY wakes one sleeping worker, and a worker whose claim came back full wakes one more: a burst
 * brings in as many workers as it needs, and a trickle does not send every worker to find nothing.
 *
 * Each attempt is logged. A failure that is worth retrying (no answer, 429, 5xx) is tried again up
 * to CANOPY_HOOK_RETRY_ATTEMPTS times with exponential backoff and jitter from
 * CANOPY_HOOK_RETRY_BASE_SECONDS, or after the receiver's Retry-After; GitLab's auto-disabling
 * counts the delivery once, after its last attempt. A delivery of a temporarily disabled hook waits
 * until the hook is executable again; one of a hook disabled for good is dropped.
 *
 * A worker claims the due runs of up to RUNS_PER_CLAIM hooks at once (up to RUN_LIMIT deliveries
 * each, in event order) and sends them side by side (worker/send-runs.ts): per-hook ordering allows
 * one delivery of a hook in flight, and the claim, the hooks' rows and the record of what was sent
 * are a round trip each for all of them.
 */
export function deliveryWorkers(deps: Deps): BackgroundTask[] {
  const count = deps.config.CANOPY_HOOK_WORKERS;
  if (!count) return [];
  return [{ name: "hook delivery workers", start: () => startWorkers(deps, count) }];
}

/** The most hooks one claim takes runs of. */
const RUNS_PER_CLAIM = 8;
/** The most deliveries of one hook a run takes. */
const RUN_LIMIT = 50;

/**
 * The workers' own connections. `deliveries` is a queue: it holds a few rows and thousands of dead
 * ones within seconds, between two autovacuums. A prepared statement's plan made while it was empty
 * scans it whole on every claim from then on (a sequential scan of hundreds of pages to find ten
 * rows), so these connections plan with indexes wherever one applies.
 */
export const workerPool = (deps: Deps, workers: number) =>
  createPool({
    url: deps.config.CANOPY_DATABASE_URL,
    schema: "hooks",
    max: workers + 2,
    applicationName: "canopy-hooks-delivery",
    settings: { enable_seqscan: "off" },
  });

async function startWorkers(base: Deps, count: number): Promise<() => Promise<void>> {
  const pool = workerPool(base, count);
  const deps: Deps = { ...base, pool };
  let running = true;
  const sleepers: (() => void)[] = [];
  const wakeOne = () => sleepers.shift()?.();
  const wakeAll = () => {
    while (sleepers.length) wakeOne();
  };
  const listener: PoolClient = await pool.connect();
  listener.on("notification", wakeOne);
  // A broken LISTEN connection must not take the process down: the poll still finds the work.
  listener.on("error", (err) => deps.log.warn({ err }, "hook delivery listener failed; polling only"));
  await listener.query(`LISTEN ${DELIVERIES_CHANNEL}`);

  const nap = async () => {
    const next = await nextDueAt(pool).catch(() => null);
    const untilDue = next ? next.getTime() - Date.now() : Infinity;
    const ms = Math.max(10, Math.min(deps.config.CANOPY_HOOK_POLL_MS, untilDue));
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const at = sleepers.indexOf(done);
        if (at >= 0) sleepers.splice(at, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.push(done);
    });
  };

  const loop = async () => {
    while (running) {
      try {
        const runs = await claimRuns(pool, {
          hooks: RUNS_PER_CLAIM,
          runLimit: RUN_LIMIT,
          leaseSeconds: leaseSecondsOf(deps),
          holdSeconds: deps.config.CANOPY_HOOK_ORDER_HOLD_SECONDS,
        });
        if (!runs.length) {
          await nap();
          continue;
        }
        // A full claim may have left more for another worker.
        if (runs.length === RUNS_PER_CLAIM) wakeOne();
        await deliverRuns(deps, runs);
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
    await pool.end();
  };
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
