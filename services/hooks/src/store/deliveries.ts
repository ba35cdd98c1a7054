import { randomUUID } from "node:crypto";
import { context, propagation, type Queryable } from "@canopy/kit";
import { logInsert, type LoggedAttempt } from "./logs";

/** The channel a NOTIFY wakes idle delivery workers on (any replica). */
export const DELIVERIES_CHANNEL = "canopy_hook_deliveries";

export interface NewDelivery {
  eventId: string;
  seq: number;
  trigger: string;
  payload: object;
  occurredAt: Date;
}

/**
 * One delivery per hook for an event, in the consumer's transaction (the event's id and the hook's
 * make it unique: a redelivered event adds nothing). The NOTIFY reaches the workers at commit.
 */
export async function insertDeliveries(db: Queryable, hookIds: number[], d: NewDelivery): Promise<number> {
  if (!hookIds.length) return 0;
  // The consumer's span for the event: each delivery's send continues it (worker/delivery-worker.ts).
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  // One round trip: the rows, and the NOTIFY that wakes the workers when the transaction commits.
  const { rows } = await db.query<{ inserted: number }>({
    name: "hooks-insert-deliveries",
    text: `WITH inserted AS (
       INSERT INTO deliveries (hook_id, event_id, seq, trigger, payload, idempotency_key, event_uuid, occurred_at,
                               trace_context)
       SELECT h, $2, $3, $4, $5, k, u, $6, $9::jsonb
         FROM unnest($1::bigint[], $7::uuid[], $8::uuid[]) AS t(h, k, u)
       ON CONFLICT (event_id, hook_id) DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM inserted)::int AS inserted, pg_notify($10, '')`,
    values: [
      hookIds,
      d.eventId,
      d.seq,
      d.trigger,
      JSON.stringify(d.payload),
      d.occurredAt,
      hookIds.map(() => randomUUID()),
      hookIds.map(() => randomUUID()),
      JSON.stringify(traceContext),
      DELIVERIES_CHANNEL,
    ],
  });
  return rows[0]!.inserted;
}

export interface DeliveryRow {
  id: number;
  hook_id: number;
  /** The event's place in the stream: a hook's deliveries go out in this order. */
  seq: number;
  trigger: string;
  payload: Record<string, unknown>;
  idempotency_key: string;
  event_uuid: string;
  attempts: number;
  /** W3C trace context of the event's handling (traceparent, tracestate); `{}` when none was active. */
  trace_context: Record<string, string>;
}

/**
 * Claims the next due delivery and, behind it, up to `runLimit` - 1 more of the same hook that are
 * due, in stream order, for one worker to send one after another; each is leased for `leaseSeconds`
 * and its attempt counted now (a worker that dies mid-send leaves an attempt spent, never a delivery
 * lost; its lease runs out and another worker takes it).
 *
 * Per-hook ordering: a delivery is due only when no earlier delivery of its hook (by stream
 * sequence) is still waiting, unless that one has waited longer than `holdSeconds` since it was
 * created; one that is in flight (leased) always holds the later ones back. So a hook's deliveries go
 * out in event order, and a failing one delays the later ones by at most `holdSeconds` (plus one
 * attempt's timeout). `FOR UPDATE SKIP LOCKED` lets any number of workers and replicas claim at once
 * without taking the same row.
 *
 * Why runs: ordering lets only one delivery per hook be in flight, so a busy hook goes as fast as
 * one worker's claim-send-record cycle, and a cycle of one delivery is several round trips to
 * PostgreSQL (on a loaded machine, each a wait for a CPU). A run pays the claim once for many. The
 * run stops before the first later delivery that is not due (a retry waiting): those behind it wait.
 */
export async function claimRun(
  db: Queryable,
  runLimit: number,
  leaseSeconds: number,
  holdSeconds: number,
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow & { id: string; hook_id: string }>({
    name: "hooks-claim-run",
    text: `WITH head AS (
       SELECT d.id, d.hook_id, d.seq FROM deliveries d
        WHERE d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
          AND ($3::float8 = 0 OR NOT EXISTS (
                SELECT 1 FROM deliveries e
                 WHERE e.hook_id = d.hook_id AND (e.seq, e.id) < (d.seq, d.id)
                   AND (e.leased_until > now() OR e.created_at > now() - make_interval(secs => $3))))
        ORDER BY d.next_attempt_at, d.seq, d.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED),
     behind AS (
       SELECT d.id, d.seq,
              bool_and(d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now()))
                OVER (ORDER BY d.seq, d.id) AS open
         FROM head h JOIN deliveries d ON d.hook_id = h.hook_id AND (d.seq, d.id) > (h.seq, h.id)
        ORDER BY d.seq, d.id
        LIMIT $1::int - 1),
     tail AS (
       SELECT d.id FROM deliveries d JOIN behind b ON b.id = d.id WHERE b.open
          FOR UPDATE OF d SKIP LOCKED),
     run AS (SELECT id FROM head UNION ALL SELECT id FROM tail)
     UPDATE deliveries d SET leased_until = now() + make_interval(secs => $2), attempts = d.attempts + 1
       FROM run WHERE d.id = run.id
     RETURNING d.id, d.hook_id, d.seq, d.trigger, d.payload, d.idempotency_key, d.event_uuid, d.attempts,
               d.trace_context`,
    values: [runLimit, leaseSeconds, holdSeconds],
  });
  return rows
    .map((r) => ({ ...r, id: Number(r.id), hook_id: Number(r.hook_id), seq: Number(r.seq) }))
    .sort((a, b) => a.seq - b.seq || a.id - b.id);
}

/** Done: delivered, or failed for the last time. */
export async function finishDelivery(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM deliveries WHERE id = $1", [id]);
}

/** Done, several at once (a run's successes). */
export async function finishDeliveries(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length) await db.query("DELETE FROM deliveries WHERE id = ANY($1::bigint[])", [ids]);
}

/**
 * The end of a run, in one statement: every attempt's log row, and the delivered rows done. A worker
 * that dies before it leaves neither: its run's deliveries go out again after their lease (under the
 * same Idempotency-Key), logged then.
 */
export async function finishRun(
  db: Queryable,
  hookId: number,
  attempts: LoggedAttempt[],
  deliveredIds: number[],
): Promise<void> {
  if (!attempts.length && !deliveredIds.length) return;
  const logs = logInsert(hookId, attempts, 2);
  await db.query({
    name: "hooks-finish-run",
    text: `WITH logged AS (${logs.sql} RETURNING 1),
     finished AS (DELETE FROM deliveries WHERE id = ANY($1::bigint[]) RETURNING 1)
     SELECT (SELECT count(*) FROM logged) AS logged, (SELECT count(*) FROM finished) AS finished`,
    values: [deliveredIds, ...logs.values],
  });
}

/** Gives back the claimed, unsent rest of a run: not leased, its attempt not spent. */
export async function releaseDeliveries(db: Queryable, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await db.query(
    "UPDATE deliveries SET leased_until = NULL, attempts = attempts - 1 WHERE id = ANY($1::bigint[])",
    [ids],
  );
}

/** Another attempt after `delayMs`. */
export async function retryDelivery(db: Queryable, id: number, delayMs: number): Promise<void> {
  await db.query(
    "UPDATE deliveries SET leased_until = NULL, next_attempt_at = now() + make_interval(secs => $2) WHERE id = $1",
    [id, delayMs / 1000],
  );
}

/** Puts a delivery back without spending an attempt (its hook is disabled until `until`). */
export async function postponeDelivery(db: Queryable, id: number, until: Date): Promise<void> {
  await db.query(
    "UPDATE deliveries SET leased_until = NULL, attempts = attempts - 1, next_attempt_at = $2 WHERE id = $1",
    [id, until],
  );
}

/** The earliest time a delivery becomes due (for a worker's nap); null when there is none. */
export async function nextDueAt(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>("SELECT min(next_attempt_at) AS at FROM deliveries");
  return rows[0]?.at ?? null;
}
