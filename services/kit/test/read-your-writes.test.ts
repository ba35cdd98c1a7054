/**
 * Read your writes, the kit's part (events/positions.ts): a write learns where its events landed
 * in the stream (whichever replica's relay published them), and `ConsumerProgress` holds a reader
 * until a durable consumer has applied the stream up to such a position, only for the contexts the
 * consumer reads.
 */
import {
  ConsumerProgress,
  createPool,
  emptyWritten,
  OutboxRelay,
  connectNats,
  recordEvent,
  requestContext,
  startDurableConsumer,
  withTransaction,
  type EventKind,
  type NatsConnection,
  type Pool,
  type Subscription,
} from "@canopy/kit";
import type { events } from "@canopy/protos";
import { lastMessage, purgeSubjects, testKind, testSubjects } from "./support/events";
import { throwawaySchema, NATS_URL, quietLog, TEST_STREAM, testDatabaseUrl, unique } from "./support/infra";

const subjects = testSubjects();
let pool: Pool;
/** A second pool on the same schema with a relay of its own: another replica of the same service. */
let otherPool: Pool;
let dropSchema: () => Promise<void>;
let nc: NatsConnection;
let relay: OutboxRelay;
let otherRelay: OutboxRelay;
const subscriptions: Subscription[] = [];
const durables: string[] = [];

beforeAll(async () => {
  let schema: string;
  ({ pool, drop: dropSchema, schema } = await throwawaySchema({ prefix: "kit_test_" }));
  otherPool = createPool({ url: testDatabaseUrl(), schema });
  nc = await connectNats(NATS_URL, quietLog, "kit-ryow-test", TEST_STREAM);
  // Long polls: publication here comes from the writes themselves or from an explicit kick.
  relay = new OutboxRelay(pool, nc, TEST_STREAM, quietLog, { pollMs: 60_000 });
  await relay.start();
  otherRelay = new OutboxRelay(otherPool, nc, TEST_STREAM, quietLog, { pollMs: 60_000 });
  await otherRelay.start();
});

afterAll(async () => {
  await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
  const jsm = await nc.jetstreamManager();
  for (const name of durables) await jsm.consumers.delete(TEST_STREAM.name, name).catch(() => undefined);
  await relay.stop();
  await otherRelay.stop();
  await purgeSubjects(nc, subjects.all);
  await nc.close();
  await otherPool.end();
  await dropSchema();
});

/** Commits one event of `kind` inside a request context; answers what the request wrote. */
async function writeInRequest(kind: EventKind<events.UserCreated>, userId: number) {
  const written = emptyWritten();
  await requestContext.run({ requestId: unique("req"), written }, () =>
    withTransaction(pool, (tx) => recordEvent(tx, kind, { userId, username: `u${userId}` })),
  );
  return written;
}

describe("where a write's events landed", () => {
  it("is the stream sequence of the event, under its context, with the users its kind names", async () => {
    const subject = subjects.subject("landed");
    const kind = { ...testKind(subject), users: (p: events.UserCreated) => [p.userId] };
    const written = await writeInRequest(kind, 71);
    const stored = await lastMessage(nc, subject);
    expect(stored).toBeDefined();
    expect(written.positions).toEqual(new Map([["test", stored!.seq]]));
    expect([...written.users]).toEqual([71]);
  });

  it("is found in the outbox when another replica's relay published the event", async () => {
    const subject = subjects.subject("elsewhere");
    // Recorded outside withTransaction: nothing publishes it until the other relay's kick.
    const client = await pool.connect();
    let id: string;
    try {
      await client.query("BEGIN");
      id = await recordEvent(client, testKind(subject), { userId: 72, username: "u72" });
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    await otherRelay.kick();
    const stored = await lastMessage(nc, subject);
    // A relay that published nothing itself (not started: it hears no NOTIFY) reads it from the row.
    const bystander = new OutboxRelay(pool, nc, TEST_STREAM, quietLog);
    expect(await bystander.publishAndLocate([id])).toEqual(new Map([[id, stored!.seq]]));
  });
});

describe("ConsumerProgress", () => {
  it("holds a reader until the consumer applied the position, and only for what it reads", async () => {
    const name = unique("kit_ryow_");
    durables.push(name);
    const subject = subjects.subject(name);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    subscriptions.push(
      await startDurableConsumer({
        nc,
        stream: TEST_STREAM,
        pool,
        log: quietLog,
        name,
        subjects: [subject],
        handle: () => gate,
      }),
    );
    const progress = new ConsumerProgress(
      await nc.jetstreamManager(),
      TEST_STREAM.name,
      [{ name, subjects: [subject] }],
      quietLog,
    );
    const written = await writeInRequest(testKind(subject), 81);
    const position = written.positions;

    expect(await progress.waitFor(position, 150)).toBe("timed_out");
    // A context the consumer does not read is never waited for.
    expect(await progress.waitFor(new Map([["other", 1e9]]), 5_000)).toBe("current");

    const waiting = progress.waitFor(position, 10_000);
    release();
    expect(await waiting).toBe("caught_up");
    // Known from then on: no question to JetStream.
    expect(await progress.waitFor(position, 0)).toBe("current");

    // A later event of the same context outside the consumer's filter: nothing of its filter is
    // pending, so it has applied everything up to there too.
    const beyond = await writeInRequest(testKind(subjects.subject("not-filtered")), 82);
    expect(await progress.waitFor(beyond.positions, 5_000)).toBe("caught_up");
  });
});
