import {
  connectNats,
  OutboxRelay,
  payloadOf,
  recordEvent,
  recordEvents,
  withTransaction,
  type NatsConnection,
  type Pool,
} from "@canopy/kit";
import { events } from "@canopy/protos";
import {
  lastMessage,
  messagesOn,
  purgeSubjects,
  streamCount,
  testKind,
  testSubjects,
} from "./support/events";
import { throwawaySchema, NATS_URL, quietLog, TEST_STREAM, waitFor } from "./support/infra";

const subjects = testSubjects();
let pool: Pool;
let dropSchema: () => Promise<void>;
let nc: NatsConnection;
let relay: OutboxRelay;

beforeAll(async () => {
  ({ pool, drop: dropSchema } = await throwawaySchema({ prefix: "kit_test_" }));
  nc = await connectNats(NATS_URL, quietLog, "kit-outbox-test", TEST_STREAM);
  // A long poll: publication in these tests comes from kick() or NOTIFY, never from the timer.
  relay = new OutboxRelay(pool, nc, TEST_STREAM, quietLog, { pollMs: 60_000 });
  await relay.start();
});

afterAll(async () => {
  await relay.stop();
  await purgeSubjects(nc, subjects.all);
  await nc.close();
  await dropSchema();
});

/** Records a UserCreated event on a subject of its own in a committed transaction. */
async function commitEvent(leaf: string, userId: number) {
  const kind = testKind(subjects.subject(leaf));
  const id = await withTransaction(pool, (tx) =>
    recordEvent(tx, kind, { userId, username: `user${userId}` }),
  );
  return { kind, id };
}

const outboxRow = async (id: string) =>
  (await pool.query<{ published_at: Date | null }>("SELECT published_at FROM outbox WHERE id = $1", [id]))
    .rows[0];

describe("recordEvent + OutboxRelay", () => {
  it("publishes a committed event with Nats-Msg-Id = event id and a decodable envelope", async () => {
    const before = Date.now();
    const { kind, id } = await commitEvent("committed", 41);
    await relay.kick();

    const msg = await lastMessage(nc, kind.subject);
    expect(msg).toBeDefined();
    expect(msg!.header.get("Nats-Msg-Id")).toBe(id);
    const envelope = events.Event.decode(msg!.data);
    expect(envelope).toMatchObject({ id, type: "canopy.events.v1.UserCreated" });
    expect(envelope.occurredAt!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(payloadOf(envelope, kind)).toEqual({ userId: 41, username: "user41" });
    expect((await outboxRow(id))!.published_at).toBeInstanceOf(Date);
  });

  it("has a committed event on the stream by the time withTransaction resolves, with no kick", async () => {
    const { kind, id } = await commitEvent("after-commit", 44);
    // No kick, no waiting: publishing after COMMIT is withTransaction's job.
    expect((await outboxRow(id))!.published_at).toBeInstanceOf(Date);
    expect((await lastMessage(nc, kind.subject))?.header.get("Nats-Msg-Id")).toBe(id);
  });

  it("does not wait for the relay after a transaction that recorded no event", async () => {
    const kick = jest.spyOn(relay, "kick");
    await withTransaction(pool, (tx) => tx.query("SELECT 1"));
    expect(kick).not.toHaveBeenCalled();
    // A rolled-back recording leaves no mark on the pooled client for its next transaction either.
    const kind = testKind(subjects.subject("forgotten"));
    await expect(
      withTransaction(pool, async (tx) => {
        await recordEvent(tx, kind, { userId: 45, username: "user45" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await withTransaction(pool, (tx) => tx.query("SELECT 1"));
    expect(kick).not.toHaveBeenCalled();
    kick.mockRestore();
  });

  it("publishes nothing for a transaction that rolls back", async () => {
    const kind = testKind(subjects.subject("rolled-back"));
    let recorded = "";
    const attempt = withTransaction(pool, async (tx) => {
      recorded = await recordEvent(tx, kind, { userId: 42, username: "user42" });
      throw new Error("the change failed after recording its event");
    });
    await expect(attempt).rejects.toThrow("the change failed");
    await relay.kick();
    expect(recorded).not.toBe("");
    expect(await outboxRow(recorded)).toBeUndefined();
    expect(await streamCount(nc, kind.subject)).toBe(0);
  });

  it("keeps ONE stream message when the same outbox row is published twice", async () => {
    const { kind, id } = await commitEvent("twice", 43);
    await relay.kick();
    expect(await streamCount(nc, kind.subject)).toBe(1);
    // As if the relay crashed after publishing but before recording it: the row is pending again.
    await pool.query("UPDATE outbox SET published_at = NULL WHERE id = $1", [id]);
    await relay.kick();
    expect((await outboxRow(id))!.published_at).toBeInstanceOf(Date);
    expect(await streamCount(nc, kind.subject)).toBe(1);
  });

  it("publishes the events of one transaction in the order they were recorded", async () => {
    const kind = testKind(subjects.subject("ordered"));
    const ids = await withTransaction(pool, async (tx) => {
      const out: string[] = [];
      for (let userId = 1; userId <= 5; userId++)
        out.push(await recordEvent(tx, kind, { userId, username: "u" }));
      return out;
    });
    await relay.kick();
    const published = await messagesOn(nc, kind.subject);
    expect(published.map((m) => m.header.get("Nats-Msg-Id"))).toEqual(ids);
  });

  it("records many events in one statement (recordEvents), published in order between single ones", async () => {
    const kind = testKind(subjects.subject("batch"));
    const ids = await withTransaction(pool, async (tx) => {
      const first = await recordEvent(tx, kind, { userId: 1, username: "first" });
      const many = await recordEvents(
        tx,
        kind,
        Array.from({ length: 250 }, (_, i) => ({ userId: 100 + i, username: `u${i}` })),
      );
      const last = await recordEvent(tx, kind, { userId: 2, username: "last" });
      expect(await recordEvents(tx, kind, [])).toEqual([]);
      return [first, ...many, last];
    });
    // withTransaction waited for the relay: every one is on the stream, once, in the recorded order.
    const published = await messagesOn(nc, kind.subject);
    expect(published.map((m) => m.header.get("Nats-Msg-Id"))).toEqual(ids);
    const payloads = published.map((m) => payloadOf(events.Event.decode(m.data), kind)!.userId);
    expect(payloads).toEqual([1, ...Array.from({ length: 250 }, (_, i) => 100 + i), 2]);
  });

  it("marks only the rows before a publish that fails, and publishes the rest once when it can", async () => {
    const kind = testKind(subjects.subject("partial"));
    // The third envelope is past the server's largest message: its publish alone is refused.
    const tooBig = Buffer.alloc(nc.info!.max_payload + 1);
    let kept: Buffer | undefined;
    const ids = await withTransaction(pool, async (tx) => {
      const out: string[] = [];
      for (let userId = 1; userId <= 5; userId++)
        out.push(await recordEvent(tx, kind, { userId, username: "u" }));
      kept = (await tx.query("SELECT envelope FROM outbox WHERE id = $1", [out[2]])).rows[0].envelope;
      await tx.query("UPDATE outbox SET envelope = $2 WHERE id = $1", [out[2], tooBig]);
      return out;
    });
    await relay.kick();
    const marked = async () =>
      Promise.all(ids.map(async (id) => (await outboxRow(id))!.published_at !== null));
    expect(await marked()).toEqual([true, true, false, false, false]);

    await pool.query("UPDATE outbox SET envelope = $2 WHERE id = $1", [ids[2], kept]);
    await relay.kick();
    expect(await marked()).toEqual([true, true, true, true, true]);
    // Each once: the later rows, sent in the failed pass too, were dropped as duplicates by their id.
    const published = (await messagesOn(nc, kind.subject)).map((m) => m.header.get("Nats-Msg-Id"));
    expect([...published].sort()).toEqual([...ids].sort());
    expect(published.slice(0, 2)).toEqual(ids.slice(0, 2));
  });

  it("is woken by the commit itself (LISTEN/NOTIFY), without a kick or a poll", async () => {
    const { kind } = await commitEvent("notified", 44);
    await waitFor(
      "the relay to publish on NOTIFY",
      async () => (await streamCount(nc, kind.subject)) === 1,
      3_000,
    );
  });

  it("resolves every concurrent kick, each after what was pending at its call is published", async () => {
    const committed = await Promise.all([1, 2, 3, 4, 5].map((n) => commitEvent(`burst-${n}`, 100 + n)));
    // The commits' NOTIFYs have already started passes; these kicks arrive while one is running.
    const kicks = committed.map(() => relay.kick());
    await Promise.all(kicks);
    for (const { kind } of committed) expect(await streamCount(nc, kind.subject)).toBe(1);
  });
});

describe("the NOTIFY that wakes relays", () => {
  it("reaches only the relays of the schema that wrote (one service's write no longer wakes every service)", async () => {
    const other = await throwawaySchema({ prefix: "kit_test_other_" });
    const listen = async (db: Pool) => {
      const client = await db.connect();
      const heard: string[] = [];
      client.on("notification", (n) => heard.push(n.channel));
      const { rows } = await client.query("SELECT 'canopy_outbox_' || current_schema() AS channel");
      await client.query(`LISTEN ${client.escapeIdentifier(rows[0].channel)}`);
      return { heard, done: () => client.release() };
    };
    const here = await listen(pool);
    const there = await listen(other.pool);
    try {
      await commitEvent("wakes-one", 46);
      await waitFor("the writing schema's NOTIFY", async () => here.heard.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      expect(there.heard).toEqual([]);
    } finally {
      here.done();
      there.done();
      await other.drop();
    }
  });
});
