import type { Logger } from "pino";

/**
 * Work a service repeats (key rotation, clean-ups). Every replica runs its timers, so `run` must be
 * safe to run concurrently on several replicas (an advisory lock, `FOR UPDATE SKIP LOCKED`).
 */
export interface Timer {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
  /** Also run once while the service starts, before it reports ready. */
  atStart?: boolean;
  /**
   * Also run once right after the service started, without holding up readiness: for long periods
   * (daily), which a replica restarted more often than that would otherwise never reach.
   */
  afterStart?: boolean;
}

/** Node's longest timer: a longer one fires after 1 ms, over and over (TimeoutOverflowWarning). */
export const LONGEST_TIMER_MS = 2_147_483_647;

/** Starts `timers`; the returned stop clears them and waits for runs in flight. */
export async function startTimers(timers: Timer[], log: Logger): Promise<() => Promise<void>> {
  const unusable = timers.filter((t) => !(t.everyMs >= 1 && t.everyMs <= LONGEST_TIMER_MS));
  if (unusable.length)
    throw new Error(
      `timer periods must be 1 to ${LONGEST_TIMER_MS} ms (24.8 days): ${unusable.map((t) => `${t.name} ${t.everyMs} ms`).join(", ")}`,
    );
  const inFlight = new Set<Promise<unknown>>();
  const runOnce = (timer: Timer) => {
    const run = timer
      .run()
      .catch((err) => log.warn({ err, timer: timer.name }, "timer run failed"))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
    return run;
  };
  for (const timer of timers) if (timer.atStart) await runOnce(timer);
  for (const timer of timers) if (timer.afterStart && !timer.atStart) void runOnce(timer);
  const handles = timers.map((timer) => setInterval(() => void runOnce(timer), timer.everyMs).unref());
  return async () => {
    for (const handle of handles) clearInterval(handle);
    await Promise.all(inFlight);
  };
}
