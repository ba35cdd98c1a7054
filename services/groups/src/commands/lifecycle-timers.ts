import type { Timer } from "@canopy/kit";
import type { Deps } from "../deps";
import { runAdjournedDeletions, runQueuedRemovals } from "./lifecycle-removal";

/**
 * The removal worker and the adjourned-deletion scheduler, on every replica. Both are safe to run
 * anywhere at once (the jobs are rows taken FOR UPDATE SKIP LOCKED); the flag only keeps one
 * replica from starting a pass while its previous one still runs. An interval of 0 turns one off.
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
  return timers;
}
