import type { Timer } from "@canopy/kit";
import { planFeatures } from "@canopy/kit";
import type { Deps } from "../deps";
import { takeFirstSignIn } from "../store/first-sign-ins";
import { claimPending, claimSchedule, failStale, markAllLinkedPending } from "../store/syncs";
import { syncForFirstSignIn } from "./first-sign-in";
import { runSync } from "./run-sync";

/**
 * This replica's sync workers. Pending syncs live in PostgreSQL (group_syncs), not in memory: any
 * replica claims them (FOR UPDATE SKIP LOCKED, oldest successful sync first), so a request made on
 * one replica may be synced by another, and a replica that dies leaves only a `started` row that the
 * stale sweep fails after CANOPY_LDAP_SYNC_STALE_SECONDS. `kick` wakes the workers at once; the poll
 * timer is the safety net.
 */
export class SyncWorkers {
  private running = 0;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: () => Deps) {}

  /** Starts workers up to the configured concurrency; each drains pending syncs until none is left. */
  kick(): void {
    if (this.stopped) return;
    const deps = this.deps();
    while (this.running < deps.config.CANOPY_LDAP_SYNC_CONCURRENCY) {
      this.running++;
      const run = this.drain(deps)
        .catch((err) => deps.log.warn({ err }, "ldap sync worker failed"))
        .finally(() => {
          this.running--;
          this.inFlight.delete(run);
        });
      this.inFlight.add(run);
    }
  }

  /** Queues the syncs of waiting first sign-ins, then claims and runs pending syncs until there is none. */
  private async drain(deps: Deps): Promise<void> {
    while (!this.stopped) {
      const signIn = await takeFirstSignIn(deps.pool);
      if (!signIn) break;
      await syncForFirstSignIn(deps, signIn);
    }
    while (!this.stopped) {
      const claimed = await claimPending(deps.pool);
      if (!claimed) return;
      await runSync(deps, claimed);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.inFlight);
  }
}

/**
 * The sync's timers: the poll (pending syncs, stale ones), and the schedule — every linked group
 * moves to pending once per CANOPY_LDAP_SYNC_INTERVAL_SECONDS across all replicas (GitLab's hourly
 * LdapAllGroupsSyncWorker), then workers take them oldest-synced first.
 */
export function syncTimers(deps: Deps, workers: SyncWorkers): Timer[] {
  const interval = deps.config.CANOPY_LDAP_SYNC_INTERVAL_SECONDS;
  const enabled = deps.servers.length > 0 && planFeatures(deps.config.CANOPY_PLAN).ldapGroupSync;
  const timers: Timer[] = [
    {
      name: "ldap sync poll",
      everyMs: deps.config.CANOPY_LDAP_SYNC_POLL_MS,
      afterStart: true,
      run: async () => {
        await failStale(deps.pool, deps.config.CANOPY_LDAP_SYNC_STALE_SECONDS);
        if (enabled) workers.kick();
      },
    },
  ];
  if (enabled && interval > 0)
    timers.push({
      name: "ldap scheduled sync",
      everyMs: Math.min(interval * 1000, 60_000),
      afterStart: true,
      run: async () => {
        if (!(await claimSchedule(deps.pool, "ldap-all-groups", interval))) return;
        const queued = await markAllLinkedPending(deps.pool);
        deps.log.info({ queued }, "scheduled ldap sync of every linked group");
        if (queued) workers.kick();
      },
    });
  return timers;
}
