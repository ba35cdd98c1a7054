import {
  baseConfigSchema,
  connectNats,
  deadLetterSubject,
  eventStream,
  eventStreamOf,
  loadConfig,
  OutboxRelay,
  recordEvent,
  startBroadcastConsumer,
  startDurableConsumer,
  withTransaction,
  type EventStream,
  type NatsConnection,
  type Pool,
  type Subscription,
} from "@canopy/kit";
import { AUTH_EVENTS, events } from "@canopy/protos";
import { lastMessage, testKind, testSubjects } from "./support/events";
import { NATS_URL, quietLog, throwawaySchema, unique, waitFor } from "./support/infra";

// Each deployment (one database) has its own stream: a durable consumer reads the whole stream, so
// events of another database on the same NATS must never reach it.

describe("eventStream", () => {
  it("keeps today's subjects by default: stream CANOPY holds canopy.>", () => {
    const stream = eventStreamOf(loadConfig(baseConfigSchema, {}));
    expect(stream.name).toBe("CANOPY");
    expect(stream.subjects).toEqual(["canopy.>"]);
    expect(stream.subject(AUTH_EVENTS.userCreated.subject)).toBe("canopy.auth.user.created");
    expect(stream.subject(deadLetterSubject("groups_users"))).toBe("canopy.dlq.groups_users");
    for (const kind of Object.values(AUTH_EVENTS)) expect(stream.subject(kind.subject)).toBe(kind.subject);
  });

  it("puts another stream's subjects under its lower-cased name", () => {
    const stream = eventStream("CANOPY_TEST_AB12");
    expect(stream.subjects).toEqual(["canopy_test_ab12.>"]);
    expect(stream.subject("canopy.auth.user.created")).toBe("canopy_test_ab12.auth.user.created");
    expect(stream.subject("canopy.auth.user.*")).toBe("canopy_test_ab12.auth.user.*");
    expect(stream.subject("canopy.>")).toBe("canopy_test_ab12.>");
    expect(stream.subject(deadLetterSubject("c1"))).toBe("canopy_test_ab12.dlq.c1");
  });

  it("refuses a subject outside the logical canopy tree, and an invalid name", () => {
    const stream = eventStream("CANOPY_TEST_AB12");
    expect(() => stream.subject("other.auth.user.created")).toThrow(/does not start with "canopy\."/);
    expect(() => stream.subject("canopyx.auth")).toThrow(/does not start with "canopy\."/);
    expect(() => eventStream("a.b")).toThrow(/letters, digits/);
  });
});

describe("two streams side by side", () => {
  const subjects = testSubjects();
  const sides: {
    stream: EventStream;
    nc: NatsConnection;
    pool: Pool;
    drop: () => Promise<void>;
    relay: OutboxRelay;
  }[] = [];
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    for (const name of [unique("KIT_TEST_A_"), unique("KIT_TEST_B_")]) {
      const stream = eventStream(name);
      const nc = await connectNats(NATS_URL, quietLog, `kit-stream-${name}`, stream);
      const { pool, drop } = await throwawaySchema({ prefix: "kit_test_" });
      const relay = new OutboxRelay(pool, nc, stream, quietLog, { pollMs: 60_000 });
      await relay.start();
      sides.push({ stream, nc, pool, drop, relay });
    }
  });

  afterAll(async () => {
    await Promise.all(subscriptions.map((s) => s.stop()));
    for (const { stream, nc, relay, drop } of sides) {
      await relay.stop();
      await (await nc.jetstreamManager()).streams.delete(stream.name).catch(() => undefined);
      await nc.close();
      await drop();
    }
  });

  /** Records a UserCreated event on `leaf` in a side's database; its relay publishes it at commit. */
  const record = (side: (typeof sides)[number], leaf: string, userId: number) =>
    withTransaction(side.pool, (tx) =>
      recordEvent(tx, testKind(subjects.subject(leaf)), { userId, username: `user${userId}` }),
    );

  it("creates each stream with the subjects under its own name", async () => {
    for (const { stream, nc } of sides) {
      const info = await (await nc.jetstreamManager()).streams.info(stream.name);
      expect(info.config.subjects).toEqual([`${stream.name.toLowerCase()}.>`]);
    }
  });

  it("publishes an outbox row under the stream's subject and keeps the logical one in the row", async () => {
    const [a] = sides;
    const kind = testKind(subjects.subject("published"));
    const id = await record(a!, "published", 1);
    const message = await lastMessage(a!.nc, kind.subject, a!.stream);
    expect(message?.subject).toBe(`${a!.stream.name.toLowerCase()}${kind.subject.slice("canopy".length)}`);
    expect(message?.header.get("Nats-Msg-Id")).toBe(id);
    const { rows } = await a!.pool.query("SELECT subject FROM outbox WHERE id = $1", [id]);
    expect(rows).toEqual([{ subject: kind.subject }]);
  });

  it("a durable consumer in stream A never receives what is published in stream B", async () => {
    const [a, b] = sides;
    const seen = new Map<string, number[]>();
    for (const side of sides) {
      const got: number[] = [];
      seen.set(side.stream.name, got);
      subscriptions.push(
        await startDurableConsumer({
          nc: side.nc,
          stream: side.stream,
          pool: side.pool,
          log: quietLog,
          name: "users",
          subjects: [subjects.subject("durable")],
          handle: async (event) => void got.push(events.UserCreated.decode(event.payload).userId),
        }),
      );
    }
    // The same user id in both databases: each means a different user.
    await record(b!, "durable", 7);
    await record(b!, "durable", 8);
    await record(a!, "durable", 7);
    await waitFor("A to see its own event", () => seen.get(a!.stream.name)!.includes(7));
    await waitFor("B to see both of its events", () => seen.get(b!.stream.name)!.length === 2);
    // A marker after B's events: stream A delivers in order, so anything of B's would be here by now.
    await record(a!, "durable", 9);
    await waitFor("A's marker", () => seen.get(a!.stream.name)!.includes(9));
    expect(seen.get(a!.stream.name)).toEqual([7, 9]);
    expect(seen.get(b!.stream.name)).toEqual([7, 8]);
  });

  it("a broadcast consumer of stream A hears nothing published in stream B", async () => {
    const [a, b] = sides;
    const heard: events.Event[] = [];
    subscriptions.push(
      await startBroadcastConsumer({
        nc: a!.nc,
        stream: a!.stream,
        log: quietLog,
        subjects: [subjects.all],
        handle: (event) => void heard.push(event),
      }),
    );
    const fromB = await record(b!, "broadcast", 20);
    const fromA = await record(a!, "broadcast", 21);
    await waitFor("A's own event", () => heard.some((e) => e.id === fromA));
    expect(heard.map((e) => e.id)).toEqual([fromA]);
    expect(heard.map((e) => e.id)).not.toContain(fromB);
  });
});
