import type { Timer } from "@canopy/kit";
import type { Deps } from "../deps";
import { runExpiredRemovals } from "./expired-removal";
import { runAdjournedDeletions, runQueuedRemovals } from "./lifecycle-removal";

/**
 * The removal worker, the adjourned-deletion scheduler and the daily removal of expired memberships
 * and shares, on every replica. All are safe to run anywhere at once (the rows they take are locked
 * FOR UPDATE SKIP LOCKED); the flag only keeps one replica from starting a pass while its previous
 * one still runs. An interval of 0 turns one off.
 */
export function lifecycleTimers(deps: Deps): Timer[] {
  const timers: Timer[] = [];
  const single = (run: () => Promise<unknown>) => {
    let running: Promise<unknown> | undefined;
    return () => (running ??= run().finally(() => (running = undefined)));
  };
  if (deps.config.CANOPY_GROUPS_REMOVAL_POLL_MS > 0)
    timers.push({
      name: "group removals",
      everyMs: deps.config.CANOPY_GROUPS_REMOVAL_POLL_MS,
      run: single(() => runQueuedRemovals(deps)),
    });
  if (deps.config.CANOPY_GROUPS_ADJOURNED_DELETION_MS > 0)
    timers.push({
      name: "adjourned group deletion",
      everyMs: deps.config.CANOPY_GROUPS_ADJOURNED_DELETION_MS,
      run: single(() => runAdjournedDeletions(deps)),
    });
  if (deps.config.CANOPY_GROUPS_EXPIRED_REMOVAL_MS > 0)
    timers.push({
      name: "expired memberships and shares",
      everyMs: deps.config.CANOPY_GROUPS_EXPIRED_REMOVAL_MS,
      afterStart: true,
      run: single(() => runExpiredRemovals(deps)),
    });
  return timers;
}
