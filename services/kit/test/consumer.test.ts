import type { PoolClient } from "pg";
import {
  connectNats,
  deadLetterSubject,
  metrics,
  payloadOf,
  startBroadcastConsumer,
  startDurableConsumer,
  type DurableConsumerOptions,
  type NatsConnection,
  type Pool,
  type Subscription,
} from "@canopy/kit";
import { events } from "@canopy/protos";
import {
  envelope,
  lastMessage,
  publishEnvelope,
  purgeSubjects,
  testKind,
  testSubjects,
} from "./support/events";
import { throwawaySchema, NATS_URL, quietLog, TEST_STREAM, unique, waitFor } from "./support/infra";

const subjects = testSubjects();
const kind = testKind(subjects.subject("user-created"));
let pool: Pool;
let dropSchema: () => Promise<void>;
let nc: NatsConnection;
const subscriptions: Subscription[] = [];
const durableNames: string[] = [];

beforeAll(async () => {
  ({ pool, drop: dropSchema } = await throwawaySchema({ prefix: "kit_test_" }));
  await pool.query("CREATE TABLE handled (event_id uuid NOT NULL, user_id bigint NOT NULL)");
  nc = await connectNats(NATS_URL, quietLog, "kit-consumer-test", TEST_STREAM);
});

afterEach(async () => {
  await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  const jsm = await nc.jetstreamManager();
  for (const name of durableNames) await jsm.consumers.delete(TEST_STREAM.name, name).catch(() => undefined);
  await purgeSubjects(nc, subjects.all);
  for (const name of durableNames) await purgeSubjects(nc, deadLetterSubject(name));
  await nc.close();
  await dropSchema();
});

/**
 * A durable consumer with a name and a subject of its own (a new durable consumer reads the whole
 * stream), fast retries, and cleanup.
 */
async function durable(
  handle: DurableConsumerOptions["handle"],
  options: Partial<DurableConsumerOptions> = {},
) {
  const name = unique("kit_test_");
  const subject = subjects.subject(name);
  durableNames.push(name);
  const start = () =>
    startDurableConsumer({
      nc,
      stream: TEST_STREAM,
      pool,
      log: quietLog,
      name,
      subjects: [subject],
      handle,
      retryDelayMs: 50,
      ...options,
    });
  subscriptions.push(await start());
  return { name, subject, restart: async () => void subscriptions.push(await start()) };
}

/** A handler that writes a row for each event, then does whatever `then` says (throw to fail). */
function recordingHandler(then: (attempt: number) => void = () => undefined) {
  const calls: string[] = [];
  const handle = async (event: events.Event, tx: PoolClient) => {
    calls.push(event.id);
    await tx.query("INSERT INTO handled (event_id, user_id) VALUES ($1, $2)", [
      event.id,
      payloadOf(event, kind)!.userId,
    ]);
    then(calls.length);
  };
  return { calls, handle };
}

const handledRows = async (eventId: string) =>
  (await pool.query("SELECT count(*) AS n FROM handled WHERE event_id = $1", [eventId])).rows[0].n as number;
const processedRows = async (name: string, eventId: string) =>
  (
    await pool.query("SELECT count(*) AS n FROM processed_events WHERE consumer = $1 AND event_id = $2", [
      name,
      eventId,
    ])
  ).rows[0].n as number;

/** Waits until the consumer has nothing left to deliver and nothing unacknowledged. */
async function drained(name: string) {
  const jsm = await nc.jetstreamManager();
  await waitFor(`consumer ${name} to drain`, async () => {
    const info = await jsm.consumers.info(TEST_STREAM.name, name);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  });
}

describe("startDurableConsumer", () => {
  it("retries a failed event and commits its effects exactly once", async () => {
    const handler = recordingHandler((attempt) => {
      if (attempt === 1) throw new Error("transient failure");
    });
    const { name, subject } = await durable(handler.handle);
    const event = envelope(kind, 7);
    await publishEnvelope(nc, subject, event);

    await waitFor("the event to be processed", async () => (await processedRows(name, event.id)) === 1);
    await drained(name);
    expect(handler.calls).toEqual([event.id, event.id]);
    // The first attempt's insert was rolled back with its transaction.
    expect(await handledRows(event.id)).toBe(1);
  });

  it("acks the types it does not want without running the handler or marking them", async () => {
    const handler = recordingHandler();
    const { name, subject } = await durable(handler.handle, {
      wants: (type) => type !== "canopy.events.v1.Unwanted",
    });
    const unwanted = { ...envelope(kind, 8), type: "canopy.events.v1.Unwanted" };
    const wanted = envelope(kind, 9);
    await publishEnvelope(nc, subject, unwanted);
    await publishEnvelope(nc, subject, wanted);
    await waitFor(
      "the wanted event to be processed",
      async () => (await processedRows(name, wanted.id)) === 1,
    );
    await drained(name);
    expect(handler.calls).toEqual([wanted.id]);
    expect(await processedRows(name, unwanted.id)).toBe(0);
  });

  it("keeps the events it holds alive while a batch takes longer than the ack wait: none is offered again", async () => {
    const handler = recordingHandler();
    // The first takes 2.5 s; the second waits behind it, held all the while.
    const slow = async (event: events.Event, tx: PoolClient) => {
      if (!handler.calls.length) await new Promise((r) => setTimeout(r, 2_500));
      await handler.handle(event, tx);
    };
    const { name, subject } = await durable(slow, { ackWaitMs: 1_000 });
    const first = envelope(kind, 21);
    const second = envelope(kind, 22);
    await publishEnvelope(nc, subject, first);
    await publishEnvelope(nc, subject, second);
    await waitFor(
      "both events to be processed",
      async () => (await processedRows(name, second.id)) === 1,
      15_000,
    );
    await drained(name);
    const info = await (await nc.jetstreamManager()).consumers.info(TEST_STREAM.name, name);
    // Deliveries made in all (redeliveries count): without the heartbeat JetStream offered the held ones again.
    expect(info.delivered.consumer_seq).toBe(2);
    expect(handler.calls).toEqual([first.id, second.id]);
  }, 20_000);

  it("does not run the handler again for an event it already handled", async () => {
    const handler = recordingHandler();
    const { name, subject } = await durable(handler.handle);
    const event = envelope(kind, 8);
    await publishEnvelope(nc, subject, event);
    await waitFor("the event to be processed", async () => (await processedRows(name, event.id)) === 1);
    // The same event arrives again (another relay pass outside the duplicate window).
    await publishEnvelope(nc, subject, event);
    await drained(name);
    expect(handler.calls).toEqual([event.id]);
    expect(await handledRows(event.id)).toBe(1);
  });

  it("rolls back the handler's writes when it throws", async () => {
    const handler = recordingHandler(() => {
      throw new Error("always fails");
    });
    const { name, subject } = await durable(handler.handle, { maxDeliver: 2 });
    const event = envelope(kind, 9);
    await publishEnvelope(nc, subject, event);
    await waitFor("two attempts", () => handler.calls.length === 2);
    await drained(name);
    expect(await handledRows(event.id)).toBe(0);
    expect(await processedRows(name, event.id)).toBe(0);
  });

  it("dead-letters an event after maxDeliver failed attempts and never calls the handler for it again", async () => {
    const handler = recordingHandler(() => {
      throw new Error("cannot handle user 10");
    });
    const { name, subject } = await durable(handler.handle, { maxDeliver: 3 });
    const event = envelope(kind, 10);
    await publishEnvelope(nc, subject, event);

    const dead = await waitFor("the dead letter", () => lastMessage(nc, deadLetterSubject(name)));
    expect(events.Event.decode(dead.data).id).toBe(event.id);
    expect(dead.header.get("Canopy-Original-Subject")).toBe(TEST_STREAM.subject(subject));
    expect(dead.header.get("Canopy-Error")).toBe("cannot handle user 10");
    expect(handler.calls).toHaveLength(3);
    // Counted for the dead-letters alert, under the consumer's name.
    const counted = (await metrics.deadLetters.get()).values.find((v) => v.labels.consumer === name);
    expect(counted?.value).toBe(1);
    // Nothing left unacknowledged: JetStream has nothing it could deliver again.
    await drained(name);
    expect(handler.calls).toHaveLength(3);
  });

  it("keeps consuming after a message that is not an event at all", async () => {
    const handler = recordingHandler();
    const { name, subject } = await durable(handler.handle, { maxDeliver: 2 });
    // Field 1 claims 5 bytes and brings 1: decoding throws.
    await nc.jetstream().publish(TEST_STREAM.subject(subject), Uint8Array.from([0x0a, 0x05, 0x61]));
    const event = envelope(kind, 11);
    await publishEnvelope(nc, subject, event);
    await waitFor(
      "the event after the poison message",
      async () => (await processedRows(name, event.id)) === 1,
    );
    expect(handler.calls).toEqual([event.id]);
    const dead = await waitFor("the poison message to be dead-lettered", () =>
      lastMessage(nc, deadLetterSubject(name)),
    );
    expect([...dead.data]).toEqual([0x0a, 0x05, 0x61]);
    expect(dead.header.get("Canopy-Error")).toMatch(/premature EOF/);
  });

  it("resumes where it stopped: events published while it was down are handled on restart", async () => {
    const handler = recordingHandler();
    const { name, subject, restart } = await durable(handler.handle);
    await subscriptions.pop()!.stop();
    const event = envelope(kind, 12);
    await publishEnvelope(nc, subject, event);
    expect(handler.calls).toEqual([]);
    await restart();
    await waitFor("the event published while down", async () => (await processedRows(name, event.id)) === 1);
    expect(handler.calls).toEqual([event.id]);
  });

  it("applies a burst in a few transactions, in stream order, rolling back a failed event alone", async () => {
    const transactions = new Set<string>();
    const failing = 150;
    const handler = recordingHandler();
    // Fails in the batch's first pass (all at once) and again in its second (event by event).
    let failures = 2;
    const { name, subject, restart } = await durable(async (event, tx, meta) => {
      transactions.add((await tx.query("SELECT txid_current() AS id")).rows[0].id as string);
      await handler.handle(event, tx);
      if (payloadOf(event, kind)!.userId === failing && failures > 0) {
        failures--;
        throw new Error("transient failure after a write");
      }
      expect(meta.streamSequence).toBeGreaterThan(0);
    });
    await subscriptions.pop()!.stop();
    const burst = Array.from({ length: 300 }, (_, i) => envelope(kind, i + 1));
    for (const event of burst) await publishEnvelope(nc, subject, event);
    await restart();
    await waitFor(
      "the whole burst",
      async () =>
        Number(
          (
            await pool.query("SELECT count(*) AS n FROM handled WHERE event_id = ANY($1::uuid[])", [
              burst.map((e) => e.id),
            ])
          ).rows[0].n,
        ) === 300,
    );
    await drained(name);
    // Each event's effects exactly once, the failed attempt's write rolled back with it alone.
    const { rows } = await pool.query<{ event_id: string; n: number | string }>(
      "SELECT event_id, count(*) AS n FROM handled WHERE event_id = ANY($1::uuid[]) GROUP BY event_id",
      [burst.map((e) => e.id)],
    );
    expect(rows).toHaveLength(300);
    expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
    // The handler saw the events in stream order. The batch with the failed event was rolled back
    // and applied again event by event (its events before the failed one twice, their first
    // effects rolled back), and the failed one came once more after the rest.
    const failedId = burst[failing - 1]!.id;
    expect([...new Set(handler.calls)]).toEqual(burst.map((e) => e.id));
    expect(handler.calls.filter((id) => id === failedId)).toHaveLength(3);
    expect(handler.calls.at(-1)).toEqual(failedId);
    // Batched: far fewer transactions than events (one per event before).
    expect(transactions.size).toBeLessThan(50);
  });
});

describe("startBroadcastConsumer", () => {
  const subject = subjects.subject("broadcast");

  async function broadcast(handle: (e: events.Event) => void) {
    subscriptions.push(
      await startBroadcastConsumer({ nc, stream: TEST_STREAM, log: quietLog, subjects: [subject], handle }),
    );
  }

  it("delivers every new event to every replica, and nothing published before it started", async () => {
    await publishEnvelope(nc, subject, envelope(kind, 1)); // history: not for a consumer starting now
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    await broadcast((e) => void seenByA.push(e.id));
    await broadcast((e) => void seenByB.push(e.id));

    const fresh = envelope(kind, 2);
    await publishEnvelope(nc, subject, fresh);
    // Delivery is in stream order: once a later marker is seen, anything before it would have been.
    const marker = envelope(kind, 5);
    await publishEnvelope(nc, subject, marker);
    await waitFor(
      "both replicas to see the marker",
      () => seenByA.includes(marker.id) && seenByB.includes(marker.id),
    );
    expect(seenByA).toEqual([fresh.id, marker.id]);
    expect(seenByB).toEqual([fresh.id, marker.id]);
  });

  it("keeps delivering after a handler throws", async () => {
    const seen: string[] = [];
    await broadcast((e) => {
      seen.push(e.id);
      throw new Error("cache unavailable");
    });
    const [first, second] = [envelope(kind, 3), envelope(kind, 4)];
    await publishEnvelope(nc, subject, first);
    await publishEnvelope(nc, subject, second);
    await waitFor("both events", () => seen.length === 2);
    expect(seen).toEqual([first.id, second.id]);
  });
});
