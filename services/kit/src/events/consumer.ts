import { context, propagation } from "@opentelemetry/api";
import { AckPolicy, DeliverPolicy, headers as natsHeaders, type JsMsg, type NatsConnection } from "nats";
import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import { events } from "@canopy/protos";
import { withTransaction } from "../db";
import { deadLetterSubject } from "./catalog";
import type { EventStream } from "./stream";

/** nats-server before 2.10 accepts only `filter_subject`; several subjects need 2.10's `filter_subjects`. */
const filterOf = (subjects: string[]) =>
  subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };

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
  handle: (event: events.Event, tx: PoolClient, meta: { streamSequence: number }) => Promise<void>;
  /** Deliveries before the event goes to the dead-letter subject. Default 5. */
  maxDeliver?: number;
  /** Delay before a failed event is offered again, times the delivery count. Default 1 s. */
  retryDelayMs?: number;
  ackWaitMs?: number;
  /** Called after an event is applied and acked (consumer-progress.ts asks JetStream again at once). */
  applied?: () => void;
}

/**
 * A durable JetStream consumer with exactly-once effects: the handler's writes and the row in
 * `processed_events` commit together, and the message is acked only after that commit. A redelivered
 * event that was already handled is acked without running the handler again. After `maxDeliver`
 * failed attempts the event is published to `canopy.dlq.<name>` (in the stream) and terminated.
 */
export async function startDurableConsumer(options: DurableConsumerOptions): Promise<Subscription> {
  const { nc, stream, pool, log, name } = options;
  const maxDeliver = options.maxDeliver ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream.name, {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ...filterOf(options.subjects.map(stream.subject)),
    // One more than ours, so our own last-attempt handling (dead letter) always runs.
    max_deliver: maxDeliver + 1,
    ack_wait: (options.ackWaitMs ?? 30_000) * 1e6,
  });
  const consumer = await nc.jetstream().consumers.get(stream.name, name);
  const messages = await consumer.consume({ max_messages: 64 });

  const handleOne = async (msg: JsMsg) => {
    let event: events.Event | undefined;
    try {
      // Decoded inside the try: bytes that are not an envelope are retried and dead-lettered like any
      // failure instead of ending the consume loop (and with it the consumer) with an exception.
      const decoded = (event = events.Event.decode(msg.data));
      const parent = propagation.extract(context.active(), decoded.traceContext);
      await context.with(parent, () =>
        withTransaction(pool, async (tx) => {
          const fresh = await tx.query(
            "INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [name, decoded.id],
          );
          if (fresh.rowCount) await options.handle(decoded, tx, { streamSequence: msg.seq });
        }),
      );
      msg.ack();
      options.applied?.();
    } catch (err) {
      const attempt = msg.info.deliveryCount;
      if (attempt >= maxDeliver) {
        log.error({ err, consumer: name, event_id: event?.id, type: event?.type }, "event dead-lettered");
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
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      // Even a failed dead-letter publish must not end the loop; the message is redelivered later.
      await handleOne(msg).catch((err) =>
        log.error({ err, consumer: name }, "event could not be handled or parked"),
      );
    }
  })();
  return {
    stop: async () => {
      await messages.close();
      await loop;
    },
  };
}

/**
 * Every replica sees every event (an ephemeral ordered consumer starting now), for in-memory
 * reactions such as dropping cached answers. Handlers must be idempotent and quick.
 */
export async function startBroadcastConsumer(options: {
  nc: NatsConnection;
  stream: EventStream;
  log: Logger;
  /** Logical subjects (`canopy.auth.>`); the stream maps them. */
  subjects: string[];
  handle: (event: events.Event) => Promise<void> | void;
}): Promise<Subscription> {
  const subjects = options.subjects.map(options.stream.subject);
  const consumer = await options.nc.jetstream().consumers.get(options.stream.name, {
    // A single subject as a string: nats-server 2.9 (Debian 12's) knows only one filter.
    filterSubjects: subjects.length === 1 ? subjects[0]! : subjects,
    deliver_policy: DeliverPolicy.New,
  });
  const messages = await consumer.consume();
  const loop = (async () => {
    for await (const msg of messages) {
      try {
        await options.handle(events.Event.decode(msg.data));
      } catch (err) {
        options.log.error({ err, subject: msg.subject }, "broadcast event handling failed");
      }
    }
  })();
  return {
    stop: async () => {
      await messages.close();
      await loop;
    },
  };
}
