import { recordEvent, withTransaction, type Timer } from "@canopy/kit";
import { PROJECTS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { lockEventBackfill, recordEventBackfillProgress } from "../store/event-backfills";
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
 * way leaves the rest to the next. Each project is locked (FOR UPDATE) while its snapshot is
 * recorded: a change made meanwhile waits, and its own event follows the snapshot on the stream.
 */
export async function backfillProjectSnapshots(deps: Deps, batch = BATCH): Promise<void> {
  let published = 0;
  for (;;) {
    const progress = await withTransaction(deps.pool, async (tx) => {
      const row = await lockEventBackfill(tx, PROJECT_SNAPSHOTS_BACKFILL);
      if (!row || row.done_at) return { done: true, count: 0 };
      const rows = await lockProjectsAfter(tx, Number(row.last_id), batch);
      for (const project of rows)
        await recordEvent(tx, PROJECTS_EVENTS.projectRepublished, { project: projectSnapshot(project) });
      const done = rows.length < batch;
      await recordEventBackfillProgress(tx, PROJECT_SNAPSHOTS_BACKFILL, {
        lastId: rows.at(-1)?.id ?? Number(row.last_id),
        done,
      });
      return { done, count: rows.length };
    });
    published += progress.count;
    if (progress.done) break;
  }
  if (published) deps.log.info({ projects: published }, "published snapshots of existing projects");
}

/** After each start (and hourly, at no cost once done): the backfill, until it is done. */
export const snapshotBackfillTimer = (deps: Deps): Timer => ({
  name: "project snapshot backfill",
  everyMs: 3600_000,
  afterStart: true,
  run: () => backfillProjectSnapshots(deps),
});
