import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AckPolicy, DeliverPolicy, headers as natsHeaders, type JsMsg, type NatsConnection } from "nats";
import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import { events } from "@canopy/protos";
import { withTransaction } from "../db";
import { metrics } from "../metrics";
import { deadLetterSubject } from "./catalog";
import { BatchScope, type EventMeta } from "./batch-scope";
import type { EventStream } from "./stream";

const tracer = trace.getTracer("canopy-events");

/**
 * The trace an event continues: the relay's publish span from the message's headers, or (a message
 * published before relays set them, or republished from elsewhere) the context the envelope recorded.
 */
function traceContextOf(msg: JsMsg, event: events.Event): Record<string, string> {
  const traceparent = msg.headers?.get("traceparent");
  if (!traceparent) return event.traceContext;
  const tracestate = msg.headers?.get("tracestate");
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The most events a durable consumer applies in one transaction (and pulls ahead). */
const BATCH = 64;
/** JetStream's wait for an ack (DurableConsumerOptions.ackWaitMs). */
const DEFAULT_ACK_WAIT_MS = 3_000;

/** nats-server before 2.10 accepts only `filter_subject`; several subjects need 2.10's `filter_subjects`. */
const filterOf = (subjects: string[]) =>
  subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };

/** How one event of a batch went: applied (or skipped, or already applied) when `err` is undefined. */
interface Result {
  msg: JsMsg;
  event?: events.Event;
  err?: unknown;
}

function decodeOrUndefined(msg: JsMsg): events.Event | undefined {
  try {
    return events.Event.decode(msg.data);
  } catch {
    return undefined;
  }
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface DurableConsumerOptions {
  nc: NatsConnection;
  stream: EventStream;
  pool: Pool;
  log: Logger;
  /** Durable name, shared by every replica of the consuming service. */
  name: string;
  /** Logical subjects (`canopy.auth.user.*`); the stream maps them. */
  subjects: string[];
  /**
   * Runs inside the transaction that records the event as handled. `meta.streamSequence` is the
   * event's place in the stream (the hooks service orders a hook's deliveries by it).
   */
  handle: (event: events.Event, tx: PoolClient, meta: EventMeta) => Promise<void>;
  /** Deliveries before the event goes to the dead-letter subject. Default 5. */
  maxDeliver?: number;
  /** Delay before a failed event is offered again, times the delivery count. Default 1 s. */
  retryDelayMs?: number;
  /**
   * How long JetStream waits for the ack of an event a replica took before it offers the event to
   * another (default 3 s). A replica keeps the events it holds alive while it works on them, however
   * long a batch takes, so this only bounds how long the events of a replica that died stay stuck:
   * until they are offered again, the consumer's ack floor cannot pass them, and every call that
   * waits to read its caller's writes (consumer-progress.ts) waits its whole bound.
   */
  ackWaitMs?: number;
  /** Called after an event is applied and acked (consumer-progress.ts asks JetStream again at once). */
  applied?: () => void;
  /**
   * The event types `handle` uses, when its subjects bring others too (one wide filter: nats-server
   * 2.9 takes one subject per consumer): the rest are acked at once, without a transaction's work.
   */
  wants?: (type: string) => boolean;
}

/**
 * A durable JetStream consumer with exactly-once effects: the handler's writes and the row in
 * `processed_events` commit together (events that arrived together share one transaction), and the
 * message is acked only after that commit. A redelivered
 * event that was already handled is acked without running the handler again. After `maxDeliver`
 * failed attempts the event is published to `canopy.dlq.<name>` (in the stream) and terminated.
 */
export async function startDurableConsumer(options: DurableConsumerOptions): Promise<Subscription> {
  const { nc, stream, pool, log, name } = options;
  const maxDeliver = options.maxDeliver ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream.name, {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...filterOf(options.subjects.map(stream.subject)),
    // One more than ours, so our own last-attempt handling (dead letter) always runs.
    max_deliver: maxDeliver + 1,
    ack_wait: ackWaitMs * 1e6,
  });
  const consumer = await nc.jetstream().consumers.get(stream.name, name);
  const messages = await consumer.consume({ max_messages: BATCH });

  /** A failed event: offered again after a delay, or parked on the dead-letter subject. */
  const failed = async (msg: JsMsg, err: unknown, event?: events.Event) => {
    const attempt = msg.info.deliveryCount;
    if (attempt >= maxDeliver) {
      log.error({ err, consumer: name, event_id: event?.id, type: event?.type }, "event dead-lettered");
      metrics.deadLetters.inc({ consumer: name });
      const h = natsHeaders();
      h.set("Canopy-Original-Subject", msg.subject);
      h.set("Canopy-Error", String((err as Error).message).slice(0, 500));
      await nc.jetstream().publish(stream.subject(deadLetterSubject(name)), msg.data, {
        headers: h,
        msgID: `${name}:${event?.id || `seq-${msg.seq}`}`,
      });
      msg.term();
    } else {
      log.warn({ err, consumer: name, event_id: event?.id, attempt }, "event handling failed; will retry");
      msg.nak(retryDelayMs * attempt);
    }
  };

  /** The handler under the event's consumer span (continuing the trace it came with). */
  const runHandler = async (msg: JsMsg, event: events.Event, tx: PoolClient, batch: BatchScope) => {
    const parent = propagation.extract(context.active(), traceContextOf(msg, event));
    const span = tracer.startSpan(
      `process ${event.type}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { "messaging.system": "nats", "messaging.consumer.group.name": name },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), () =>
        options.handle(event, tx, { streamSequence: msg.seq, batch }),
      );
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message?.slice(0, 200) });
      throw err;
    } finally {
      span.end();
    }
  };

  /**
   * The events that arrived together, in stream order, in one transaction: a commit and a round
   * trip per batch rather than per event (a burst of thousands of member events is applied in tens
   * of transactions). First all at once: the batch's marks in one statement, then each handler. If
   * anything fails, that transaction is rolled back and the batch is applied again event by event
   * (applyEachAlone), so one event that fails is rolled back alone, and only the events whose
   * effects committed are acked.
   */
  const handleBatch = async (batch: JsMsg[]) => {
    let results: Result[] | undefined;
    try {
      results = await applyAllAtOnce(batch);
    } catch (err) {
      if (batch.length > 1)
        log.debug({ err, consumer: name }, "batch failed; applying its events one by one");
      else results = [{ msg: batch[0]!, err, event: decodeOrUndefined(batch[0]!) }];
    }
    results ??= await applyEachAlone(batch);
    for (const r of results) {
      held.delete(r.msg);
      if (r.err === undefined) r.msg.ack();
      // Even a failed dead-letter publish must not end the loop; the message is redelivered later.
      else
        await failed(r.msg, r.err, r.event).catch((err) =>
          log.error({ err, consumer: name }, "event could not be handled or parked"),
        );
    }
    if (results.some((r) => r.err === undefined)) options.applied?.();
  };

  /** The whole batch in one transaction without savepoints; throws if any of it fails. */
  const applyAllAtOnce = async (batch: JsMsg[]): Promise<Result[]> => {
    const taken = batch.map((msg) => ({ msg, event: events.Event.decode(msg.data) }));
    const wanted = taken.filter(({ event }) => !options.wants || options.wants(event.type));
    await withTransaction(pool, async (tx) => {
      if (!wanted.length) return;
      const { rows } = await tx.query<{ event_id: string }>({
        name: "kit-mark-processed",
        text: `INSERT INTO processed_events (consumer, event_id) SELECT $1, unnest($2::uuid[])
               ON CONFLICT DO NOTHING RETURNING event_id`,
        values: [name, wanted.map(({ event }) => event.id)],
      });
      const fresh = new Set(rows.map((r) => r.event_id));
      // An event twice in one batch (redelivered before its ack) runs once.
      const run = wanted.filter(({ event }) => fresh.delete(event.id));
      const batch = new BatchScope(run.map(({ event }) => event));
      for (const { msg, event } of run) await runHandler(msg, event, tx, batch);
      await batch.finish();
    });
    return taken;
  };

  /** Each event under a savepoint of one transaction, so one that fails is rolled back alone. */
  const applyEachAlone = async (batch: JsMsg[]): Promise<Result[]> => {
    const results: Result[] = [];
    try {
      await withTransaction(pool, async (tx) => {
        // The previous event's savepoint, released in the next event's first round trip.
        let open = false;
        for (const msg of batch) {
          let event: events.Event | undefined;
          try {
            // Decoded inside the try: bytes that are not an envelope are retried and dead-lettered
            // like any failure instead of ending the consume loop with an exception.
            const decoded = (event = events.Event.decode(msg.data));
            if (options.wants && !options.wants(decoded.type)) {
              results.push({ msg, event });
              continue;
            }
            // One round trip: the savepoint and the mark (the values inlined, escaped by the driver,
            // since a simple-protocol query of several statements takes no parameters).
            const answers = (await tx.query(
              `${open ? "RELEASE SAVEPOINT canopy_event; " : ""}SAVEPOINT canopy_event;
               INSERT INTO processed_events (consumer, event_id)
               VALUES (${tx.escapeLiteral(name)}, ${tx.escapeLiteral(decoded.id)}) ON CONFLICT DO NOTHING`,
            )) as unknown as { rowCount: number | null }[];
            open = true;
            if (answers.at(-1)?.rowCount) {
              const alone = new BatchScope([decoded]);
              await runHandler(msg, decoded, tx, alone);
              await alone.finish();
            }
            results.push({ msg, event });
          } catch (err) {
            if (event) await tx.query("ROLLBACK TO SAVEPOINT canopy_event");
            results.push({ msg, event, err });
          }
        }
      });
    } catch (err) {
      // The commit itself failed: nothing of the batch was applied.
      for (const r of results) r.err ??= err;
      for (const msg of batch.slice(results.length)) results.push({ msg, err });
    }
    return results;
  };

  // Every event taken and not yet answered (queued or in the batch at work) is kept alive: a long
  // batch, or one waiting behind it, must not be offered to another replica meanwhile.
  const held = new Set<JsMsg>();
  const heartbeat = setInterval(() => {
    for (const msg of held) {
      try {
        msg.working();
      } catch {
        // The connection is away: the event comes back after the ack wait, and is applied once.
      }
    }
  }, ackWaitMs / 3);
  heartbeat.unref();

  // The consume loop only queues; the worker takes whatever has queued meanwhile as one batch.
  const queue: JsMsg[] = [];
  let wake: (() => void) | undefined;
  let drained: (() => void) | undefined;
  let done = false;
  const worker = (async () => {
    for (;;) {
      if (!queue.length) {
        if (done) return;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      await handleBatch(queue.splice(0, BATCH));
      drained?.();
    }
  })();
  const loop = (async () => {
    for await (const msg of messages) {
      held.add(msg);
      queue.push(msg);
      wake?.();
      // Pull no further ahead than a batch: queued messages' ack wait is running.
      if (queue.length >= BATCH) await new Promise<void>((resolve) => (drained = resolve));
    }
  })().finally(() => {
    done = true;
    wake?.();
  });
  return {
    stop: async () => {
      await messages.close();
      drained?.();
      await loop;
      await worker;
      clearInterval(heartbeat);
    },
  };
}
