import type { Queryable } from "@canopy/kit";

/** A group's sync state (migration 0002: GitLab's ldap_sync_status state machine). */
export interface SyncRow {
  group_id: number;
  status: "ready" | "pending" | "started" | "failed";
  generation: number;
  last_sync_at: Date | null;
  last_update_at: Date | null;
  last_successful_update_at: Date | null;
  error: string | null;
  unknown_dns: number;
  desired_members: number;
}

const COLUMNS = `group_id::int, status, generation::int, last_sync_at, last_update_at, last_successful_update_at,
  error, unknown_dns, desired_members`;

export async function findSync(db: Queryable, groupId: number): Promise<SyncRow | undefined> {
  const { rows } = await db.query<SyncRow>(`SELECT ${COLUMNS} FROM group_syncs WHERE group_id = $1`, [
    groupId,
  ]);
  return rows[0];
}

/**
 * ready|failed -> pending (GitLab's `pending` event); true when the group moved. A group already
 * pending or started is left as it is: one sync is queued at most.
 */
export async function markPending(db: Queryable, groupId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO group_syncs (group_id, status, pending_since) VALUES ($1, 'pending', now())
     ON CONFLICT (group_id) DO UPDATE SET status = 'pending', pending_since = now()
       WHERE group_syncs.status IN ('ready', 'failed')`,
    [groupId],
  );
  return (rowCount ?? 0) > 0;
}

/** Every group with a link moves to pending unless already pending or started (the schedule). */
export async function markAllLinkedPending(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO group_syncs (group_id, status, pending_since)
       SELECT DISTINCT group_id, 'pending', now() FROM ldap_group_links
     ON CONFLICT (group_id) DO UPDATE SET status = 'pending', pending_since = now()
       WHERE group_syncs.status IN ('ready', 'failed')`,
  );
  return rowCount ?? 0;
}

/**
 * Claims the pending group synced longest ago (never synced first): pending -> started, the next
 * generation, last_sync_at now. SKIP LOCKED: replicas claiming at once take different groups, and a
 * group in `started` is never claimed again until it is finished or failed.
 */
export async function claimPending(db: Queryable): Promise<SyncRow | undefined> {
  const { rows } = await db.query<SyncRow>(
    `UPDATE group_syncs s SET status = 'started', generation = s.generation + 1, last_sync_at = now(), error = NULL
      WHERE s.group_id = (SELECT group_id FROM group_syncs WHERE status = 'pending'
                           ORDER BY last_successful_update_at NULLS FIRST, pending_since
                           FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING s.group_id::int, s.status, s.generation::int, s.last_sync_at, s.last_update_at,
        s.last_successful_update_at, s.error, s.unknown_dns, s.desired_members`,
  );
  return rows[0];
}

/** started -> failed with the reason, for that generation only (GitLab sets last_update_at too). */
export async function markFailed(db: Queryable, groupId: number, generation: number, error: string) {
  await db.query(
    `UPDATE group_syncs SET status = 'failed', error = $3, last_update_at = now()
      WHERE group_id = $1 AND generation = $2 AND status = 'started'`,
    [groupId, generation, error.slice(0, 2000)],
  );
}

/** What the directory gave: kept until the groups service's answer finishes the sync. */
export async function recordFound(
  db: Queryable,
  groupId: number,
  generation: number,
  found: { unknownDns: number; desiredMembers: number },
) {
  await db.query(
    `UPDATE group_syncs SET unknown_dns = $3, desired_members = $4 WHERE group_id = $1 AND generation = $2`,
    [groupId, generation, found.unknownDns, found.desiredMembers],
  );
}

/** started -> ready (success) or failed (the groups service refused), for that generation only. */
export async function finishSync(db: Queryable, groupId: number, generation: number, error: string) {
  await db.query(
    error
      ? `UPDATE group_syncs SET status = 'failed', error = $3, last_update_at = now()
          WHERE group_id = $1 AND generation = $2 AND status = 'started'`
      : `UPDATE group_syncs SET status = 'ready', error = NULL, last_update_at = now(),
           last_successful_update_at = now()
          WHERE group_id = $1 AND generation = $2 AND status = 'started'`,
    error ? [groupId, generation, error] : [groupId, generation],
  );
}

/**
 * Syncs started longer ago than `staleSeconds` are failed with GitLab's message (the replica that
 * held them died, or the groups service's answer was lost): the next request or schedule retries.
 */
export async function failStale(db: Queryable, staleSeconds: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE group_syncs SET status = 'failed',
       error = CASE WHEN last_sync_at IS NULL
                    THEN 'The sync failed because the group is an inconsistent state'
                    ELSE 'The sync took too long to complete.' END
      WHERE status = 'started' AND (last_sync_at IS NULL OR last_sync_at < now() - make_interval(secs => $1))`,
    [staleSeconds],
  );
  return rowCount ?? 0;
}

/** True once per `seconds` across every replica (the first to ask in a period wins). */
export async function claimSchedule(db: Queryable, name: string, seconds: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO schedules (name, last_run_at) VALUES ($1, now())
     ON CONFLICT (name) DO UPDATE SET last_run_at = now()
       WHERE schedules.last_run_at <= now() - make_interval(secs => $2)`,
    [name, seconds],
  );
  return (rowCount ?? 0) > 0;
}
