import { recordEvent, runEventBackfill, type Timer } from "@canopy/kit";
import { PROJECTS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { lockProjectsAfter } from "../store/projects";

export const PROJECT_SNAPSHOTS_BACKFILL = "project-snapshots";
const BATCH = 1000;

/**
 * Publishes a ProjectRepublished snapshot of every project once (migration 0006), so a consumer
 * that joins an existing deployment (the groups service's copy of projects) learns projects whose
 * events the stream (7 days) no longer holds. Runs after each start and returns at once when done.
 *
 * Each batch is one transaction holding the backfill's row, so replicas take turns and each batch is
 * published by exactly one of them; its progress commits with its events, so a replica stopped half
 * way leaves the rest to the next (the kit's runEventBackfill). Each project is locked (FOR UPDATE)
 * while its snapshot is recorded: a change made meanwhile waits, and its own event follows the
 * snapshot on the stream.
 */
export async function backfillProjectSnapshots(deps: Deps, batch = BATCH): Promise<void> {
  const published = await runEventBackfill(
    deps.pool,
    PROJECT_SNAPSHOTS_BACKFILL,
    async (tx, afterId, limit) => {
      const rows = await lockProjectsAfter(tx, afterId, limit);
      for (const project of rows)
        await recordEvent(tx, PROJECTS_EVENTS.projectRepublished, { project: projectSnapshot(project) });
      return rows.map((r) => r.id);
    },
    batch,
  );
  if (published) deps.log.info({ projects: published }, "published snapshots of existing projects");
}

/** After each start (and hourly, at no cost once done): the backfill, until it is done. */
export const snapshotBackfillTimer = (deps: Deps): Timer => ({
  name: "project snapshot backfill",
  everyMs: 3600_000,
  afterStart: true,
  run: () => backfillProjectSnapshots(deps),
});
