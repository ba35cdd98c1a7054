import type { Queryable } from "@canopy/kit";
import { LINK_COLUMNS, type ProjectLinkRow } from "./project-links";
import { MEMBERSHIP_COLUMNS, type MembershipRow } from "./project-members";

export interface EventBackfillRow {
  name: string;
  /** The highest id published so far: the next batch starts after it. */
  last_id: number;
  done_at: Date | null;
}

/**
 * Takes the backfill's row for the rest of the transaction. Another replica asking meanwhile waits,
 * then reads the progress this transaction commits, so no batch is published twice.
 */
export async function lockEventBackfill(tx: Queryable, name: string): Promise<EventBackfillRow | undefined> {
  const { rows } = await tx.query<EventBackfillRow>(
    "SELECT name, last_id, done_at FROM event_backfills WHERE name = $1 FOR UPDATE",
    [name],
  );
  return rows[0];
}

/** Records progress; `done` marks the backfill finished for good. */
export async function recordEventBackfillProgress(
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

/** Direct project memberships after `afterId` in id order, locked while their snapshots are recorded. */
export async function lockProjectMembershipsAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM project_members WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
    [afterId, limit],
  );
  return rows;
}

/** Shares of projects with groups after `afterId` in id order, locked likewise. */
export async function lockProjectLinksAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<ProjectLinkRow[]> {
  const { rows } = await db.query<ProjectLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM project_group_links WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
    [afterId, limit],
  );
  return rows;
}
