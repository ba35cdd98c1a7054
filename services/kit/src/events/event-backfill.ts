import { withTransaction, type Pool, type PoolClient, type Queryable } from "../db";

/*
 * One-time publications of events that a new version owes to consumers of existing data (a snapshot
 * of every user, namespace, membership, share or project that existed before the event carried it).
 * Every service that owes one keeps an `event_backfills` table in its own schema (auth's migration
 * 0006, groups' 0011, projects' 0006: the same shape), one row per backfill.
 *
 * Each batch is one transaction that holds the backfill's row, so replicas starting together take
 * turns and each batch is published by exactly one of them; the progress commits with the batch's
 * events, so a replica that dies half way leaves the rest to the next one.
 */

interface EventBackfillRow {
  name: string;
  /** The highest id published so far: the next batch starts after it. */
  last_id: number;
  done_at: Date | null;
}

/**
 * Takes the backfill's row for the rest of the transaction. Another replica asking meanwhile waits,
 * then reads the progress this transaction commits, so no batch is published twice.
 */
async function lockEventBackfill(tx: Queryable, name: string): Promise<EventBackfillRow | undefined> {
  const { rows } = await tx.query<EventBackfillRow>(
    "SELECT name, last_id, done_at FROM event_backfills WHERE name = $1 FOR UPDATE",
    [name],
  );
  return rows[0];
}

/** Records progress; `done` marks the backfill finished for good. */
async function recordEventBackfillProgress(
  tx: Queryable,
  name: string,
  { lastId, done }: { lastId: number; done: boolean },
): Promise<void> {
  await tx.query(
    `UPDATE event_backfills
        SET last_id = $2, started_at = coalesce(started_at, now()), done_at = CASE WHEN $3 THEN now() END
      WHERE name = $1`,
    [name, lastId, done],
  );
}

/**
 * Records the events of the next `batch` rows after id `afterId` (each row locked while its event
 * is recorded, so a change made meanwhile waits and its own event follows), and answers the ids it
 * published, in order.
 */
export type PublishBackfillBatch = (tx: PoolClient, afterId: number, batch: number) => Promise<number[]>;

/**
 * Runs the backfill `name` to its end, batch by batch, and answers how many rows it published (0
 * when it was already done, or when another replica did the work). Cheap to call at every start.
 */
export async function runEventBackfill(
  pool: Pool,
  name: string,
  publishBatch: PublishBackfillBatch,
  batch: number,
): Promise<number> {
  let published = 0;
  for (;;) {
    const progress = await withTransaction(pool, async (tx) => {
      const row = await lockEventBackfill(tx, name);
      if (!row || row.done_at) return { done: true, count: 0 };
      const ids = await publishBatch(tx, row.last_id, batch);
      const done = ids.length < batch;
      await recordEventBackfillProgress(tx, name, { lastId: ids.at(-1) ?? row.last_id, done });
      return { done, count: ids.length };
    });
    published += progress.count;
    if (progress.done) return published;
  }
}
