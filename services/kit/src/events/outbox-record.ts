import { randomUUID } from "node:crypto";
import { context, propagation } from "@opentelemetry/api";
import { common, events } from "@canopy/protos";
import type { Queryable } from "../db";
import { markEventRecorded } from "./after-commit";
import type { EventKind } from "./catalog";

/**
 * The channel a committed outbox row's NOTIFY wakes relays on (outbox.ts listens), as SQL: one per
 * schema, so that only the relays of the service that wrote wake up (with one channel for all, every
 * service's relay looked at its empty outbox after every other service's write).
 */
export const NOTIFY_CHANNEL_SQL = "'canopy_outbox_' || current_schema()";

/**
 * Records an event in the caller's transaction (transactional outbox): the event exists if and only
 * if the change that caused it committed. The relay publishes it afterwards. The row keeps the
 * logical subject: which stream it goes to is the relay's configuration, so renaming the stream
 * later still publishes what is pending.
 */
export async function recordEvent<T>(tx: Queryable, kind: EventKind<T>, payload: T, actor?: common.Actor) {
  const id = randomUUID();
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const envelope = events.Event.encode({
    id,
    type: kind.type,
    occurredAt: new Date(),
    actor,
    traceContext,
    payload: Buffer.from(kind.codec.encode(payload).finish()),
  }).finish();
  // One round trip: the row, and the NOTIFY that wakes relays when the transaction commits.
  await tx.query({
    name: "canopy-outbox-record",
    text: `WITH recorded AS (INSERT INTO outbox (id, subject, envelope) VALUES ($1, $2, $3) RETURNING id)
      SELECT pg_notify(${NOTIFY_CHANNEL_SQL}, '') FROM recorded`,
    values: [id, kind.subject, envelope],
  });
  markEventRecorded(tx, { id, subject: kind.subject, users: kind.users?.(payload) ?? [] });
  return id;
}

/** One event to record with others (recordEventList): `eventOf(kind, payload)` keeps the two matched. */
export interface EventEntry {
  subject: string;
  type: string;
  payload: Uint8Array;
  users: number[];
}

export const eventOf = <T>(kind: EventKind<T>, payload: T): EventEntry => ({
  subject: kind.subject,
  type: kind.type,
  payload: kind.codec.encode(payload).finish(),
  users: kind.users?.(payload) ?? [],
});

/**
 * `recordEvent` for many events of one kind, in their order, in one statement: a command that writes
 * thousands of rows (an LDAP sync adding 5,000 members) would otherwise spend a round trip per event.
 * Returns their ids, in order.
 */
export async function recordEvents<T>(
  tx: Queryable,
  kind: EventKind<T>,
  payloads: T[],
  actor?: common.Actor,
): Promise<string[]> {
  return recordEventList(
    tx,
    payloads.map((payload) => eventOf(kind, payload)),
    actor,
  );
}

/** Events of any kinds, in their order, in one statement (one round trip for a command's events). */
export async function recordEventList(
  tx: Queryable,
  entries: EventEntry[],
  actor?: common.Actor,
): Promise<string[]> {
  if (!entries.length) return [];
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const occurredAt = new Date();
  const ids = entries.map(() => randomUUID());
  const envelopes = entries.map((e, i) =>
    Buffer.from(
      events.Event.encode({
        id: ids[i]!,
        type: e.type,
        occurredAt,
        actor,
        traceContext,
        payload: Buffer.from(e.payload),
      }).finish(),
    ),
  );
  // One round trip: the rows (seq in the entries' order), and the NOTIFY that wakes relays when the
  // transaction commits.
  await tx.query({
    name: "canopy-outbox-record-list",
    text: `WITH recorded AS (
        INSERT INTO outbox (id, subject, envelope)
        SELECT e.id, e.subject, e.envelope
          FROM unnest($1::uuid[], $2::text[], $3::bytea[]) WITH ORDINALITY AS e (id, subject, envelope, n)
         ORDER BY e.n
        RETURNING 1)
      SELECT pg_notify(${NOTIFY_CHANNEL_SQL}, '') FROM (SELECT 1 FROM recorded LIMIT 1) one`,
    values: [ids, entries.map((e) => e.subject), envelopes],
  });
  entries.forEach((e, i) => markEventRecorded(tx, { id: ids[i]!, subject: e.subject, users: e.users }));
  return ids;
}
