import type { Queryable } from "@canopy/kit";
import { GROUP_HOOK_FLAGS, type GroupHookFlag } from "@canopy/kit";
import { executableWhere } from "./hooks";
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

/** An event's deliveries to write: the delivery, and which hooks it reaches (store/hooks.ts Reached). */
export interface EventDeliveries {
  delivery: NewDelivery;
  groupIds: number[];
  flag: GroupHookFlag;
  /** W3C trace context of the event's handling: each delivery's send continues it. */
  traceContext: Record<string, string>;
}

/** The flag column an event's row names, as SQL (GitLab's flags: a fixed list, no input reaches it). */
const FLAG_OF_ROW = `CASE e.flag ${GROUP_HOOK_FLAGS.map((f) => `WHEN '${f}' THEN h.${f}`).join(" ")} END`;

/**
 * One delivery for each hook each event reaches (its groups' hooks whose flag is on, executable,
 * made by the event's time: store/hooks.ts reachedWhere), for a batch of events in one statement, in
 * the consumer's transaction (the event's id and the hook's make a row unique: a redelivered event
 * adds nothing). The NOTIFY reaches the workers at commit.
 */
export async function insertDeliveries(
  db: Queryable,
  batch: EventDeliveries[],
  autoDisable: boolean,
): Promise<number> {
  if (!batch.length) return 0;
  const column = <T>(of: (e: EventDeliveries) => T) => batch.map(of);
  const { rows } = await db.query<{ inserted: number }>({
    name: `hooks-insert-deliveries${autoDisable ? "-a" : ""}`,
    text: `WITH inserted AS (
       INSERT INTO deliveries (hook_id, event_id, seq, trigger, payload, idempotency_key, event_uuid, occurred_at,
                               trace_context)
       SELECT h.id, e.event_id, e.seq, e.trigger, e.payload, gen_random_uuid(), gen_random_uuid(), e.occurred_at,
              e.trace_context
         FROM unnest($1::text[], $2::bigint[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::text[], $7::text[],
                     $8::jsonb[]) AS e (event_id, seq, trigger, payload, occurred_at, flag, group_ids, trace_context)
         JOIN hooks h ON h.group_id = ANY(e.group_ids::bigint[])
        WHERE ${FLAG_OF_ROW} AND ${executableWhere(autoDisable, "h")}
          AND date_trunc('milliseconds', h.created_at) <= e.occurred_at
       ON CONFLICT (event_id, hook_id) DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM inserted)::int AS inserted,
            CASE WHEN EXISTS (SELECT 1 FROM inserted) THEN pg_notify($9, '') END`,
    values: [
      column((e) => e.delivery.eventId),
      column((e) => e.delivery.seq),
      column((e) => e.delivery.trigger),
      column((e) => JSON.stringify(e.delivery.payload)),
      column((e) => e.delivery.occurredAt),
      column((e) => e.flag),
      column((e) => `{${e.groupIds.map(Number).join(",")}}`),
      column((e) => JSON.stringify(e.traceContext)),
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

/** What a worker asks of one claim (claimRuns). */
export interface ClaimLimits {
  /** The most hooks whose runs one claim takes. */
  hooks: number;
  /** The most deliveries of one hook in a run. */
  runLimit: number;
  leaseSeconds: number;
  holdSeconds: number;
}

/**
 * Claims runs of up to `hooks` hooks in one statement: for each, its next due delivery and, behind
 * it, up to `runLimit` - 1 more of the same hook that are due, in stream order, for a worker to send
 * one after another. Each is leased for `leaseSeconds` and its attempt counted now (a worker that
 * dies mid-send leaves an attempt spent, never a delivery lost; its lease runs out and another
 * worker takes it). The runs come back grouped by hook, each in stream order.
 *
 * Per-hook ordering: a delivery is due only when no earlier delivery of its hook (by stream
 * sequence) is still waiting, unless that one has waited longer than `holdSeconds` since it was
 * created; one that is in flight (leased) always holds the later ones back. So a hook's deliveries go
 * out in event order, and a failing one delays the later ones by at most `holdSeconds` (plus one
 * attempt's timeout). `FOR UPDATE SKIP LOCKED` lets any number of workers and replicas claim at once
 * without taking the same row; a hook with two heads (its hold ran out) gives one run per claim.
 *
 * Why runs, and several hooks per claim: ordering lets only one delivery per hook be in flight, so a
 * busy hook goes as fast as one worker's claim-send-record cycle, and each cycle is round trips to
 * PostgreSQL (on a loaded machine, each a wait for a CPU and CPU of its own). A claim of many runs
 * pays them once for many deliveries. A run stops before the first later delivery that is not due (a
 * retry waiting): those behind it wait.
 */
export async function claimRuns(db: Queryable, limits: ClaimLimits): Promise<DeliveryRow[][]> {
  const { rows } = await db.query<DeliveryRow & { id: string; hook_id: string }>({
    name: "hooks-claim-runs",
    text: `WITH heads AS (
       SELECT d.id, d.hook_id, d.seq FROM deliveries d
        WHERE d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
          AND ($4::float8 = 0 OR NOT EXISTS (
                SELECT 1 FROM deliveries e
                 WHERE e.hook_id = d.hook_id AND (e.seq, e.id) < (d.seq, d.id)
                   AND (e.leased_until > now() OR e.created_at > now() - make_interval(secs => $4))))
        ORDER BY d.next_attempt_at, d.seq, d.id
        LIMIT $1::int
        FOR UPDATE SKIP LOCKED),
     firsts AS (SELECT DISTINCT ON (hook_id) id, hook_id, seq FROM heads ORDER BY hook_id, seq, id),
     behind AS (
       SELECT b.id FROM firsts h CROSS JOIN LATERAL (
         SELECT d.id,
                bool_and(d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now()))
                  OVER (ORDER BY d.seq, d.id) AS open
           FROM deliveries d
          WHERE d.hook_id = h.hook_id AND (d.seq, d.id) > (h.seq, h.id)
          ORDER BY d.seq, d.id
          LIMIT $2::int - 1) b
        WHERE b.open),
     tail AS (
       SELECT d.id FROM deliveries d JOIN behind b ON b.id = d.id
          FOR UPDATE OF d SKIP LOCKED),
     run AS (SELECT id FROM firsts UNION SELECT id FROM tail)
     UPDATE deliveries d SET leased_until = now() + make_interval(secs => $3), attempts = d.attempts + 1
       FROM run WHERE d.id = run.id
     RETURNING d.id, d.hook_id, d.seq, d.trigger, d.payload, d.idempotency_key, d.event_uuid, d.attempts,
               d.trace_context`,
    values: [limits.hooks, limits.runLimit, limits.leaseSeconds, limits.holdSeconds],
  });
  const runs = new Map<number, DeliveryRow[]>();
  for (const r of rows) {
    const d = { ...r, id: Number(r.id), hook_id: Number(r.hook_id), seq: Number(r.seq) };
    runs.set(d.hook_id, [...(runs.get(d.hook_id) ?? []), d]);
  }
  return [...runs.values()].map((run) => run.sort((a, b) => a.seq - b.seq || a.id - b.id));
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
 * The end of a worker's runs, in one statement: every attempt's log row, and the delivered rows
 * done. A worker that dies before it leaves neither: its runs' deliveries go out again after their
 * lease (under the same Idempotency-Key), logged then.
 */
export async function finishRuns(
  db: Queryable,
  attempts: LoggedAttempt[],
  deliveredIds: number[],
): Promise<void> {
  if (!attempts.length && !deliveredIds.length) return;
  const logs = logInsert(attempts, 2);
  await db.query({
    name: "hooks-finish-runs",
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
