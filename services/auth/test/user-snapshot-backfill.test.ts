import { createPool, payloadOf, type Pool } from "@canopy/kit";
import { AUTH_EVENTS, events } from "@canopy/protos";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { startEventReader, type EventReader } from "./event-support";
import { newRootToken, startService, testEnv, waitFor, type Service } from "./support";

// A deployment that had users before auth published snapshots publishes a UserUpdated of each one
// once, when it first runs this version, so that a new consumer reading the stream from its start
// knows every user. Its own database: the outbox there holds exactly what these services recorded.
jest.setTimeout(90_000);

let own: ThrowawayDatabase;
const env = () => testEnv(newRootToken(), own.env);

let db: Pool;
let reader: EventReader | undefined;
const running: Service[] = [];
const stopAll = () => Promise.all(running.splice(0).map((s) => s.stop()));
const start = async (count: number) => {
  const started = await Promise.all(Array.from({ length: count }, () => startService(env())));
  running.push(...started);
};

beforeAll(async () => {
  own = await throwawayDatabase("canopy_test_backfill_");
  db = createPool({ url: own.url, schema: "auth" });
});
afterAll(async () => {
  await stopAll();
  await reader?.stop();
  await db.end();
  await own.drop();
});

interface Recorded {
  eventId: string;
  userId: number;
  user: events.UserSnapshot | undefined;
  published: boolean;
}

/** The UserUpdated events in the outbox, in the order they were recorded. */
async function recordedUpdates(): Promise<Recorded[]> {
  const { rows } = await db.query<{ envelope: Buffer; published: boolean }>(
    "SELECT envelope, published_at IS NOT NULL AS published FROM outbox WHERE subject = $1 ORDER BY seq",
    [AUTH_EVENTS.userUpdated.subject],
  );
  return rows.map(({ envelope, published }) => {
    const event = events.Event.decode(envelope);
    const payload = payloadOf(event, AUTH_EVENTS.userUpdated)!;
    return { eventId: event.id, userId: payload.userId, user: payload.user, published };
  });
}

/** Every user's snapshot as stored, by id. */
async function storedSnapshots(): Promise<events.UserSnapshot[]> {
  const { rows } = await db.query<events.UserSnapshot>(
    `SELECT id AS "userId", username, name, state, admin, external, can_create_group AS "canCreateGroup",
            '' AS "avatarUrl", email, coalesce(public_email, '') AS "publicEmail"
       FROM users ORDER BY id`,
  );
  // Nobody here has an identity.
  return rows.map((r) => ({ ...r, identities: [] }));
}

const backfillRow = async () =>
  (
    await db.query<{ last_id: number; done: boolean }>(
      "SELECT last_id, done_at IS NOT NULL AS done FROM event_backfills WHERE name = 'user-snapshots'",
    )
  ).rows[0];

/** Users written straight into the table, as an older version would have left them: 2.5 batches. */
async function insertExistingUsers(count: number) {
  await db.query(
    `INSERT INTO users (username, email, name, state, admin, external, can_create_group)
     SELECT 'existing_' || g, 'existing_' || g || '@example.com', 'Existing ' || g,
            CASE WHEN g % 7 = 0 THEN 'blocked' ELSE 'active' END, g % 11 = 0, g % 5 = 0, g % 3 <> 0
       FROM generate_series(1, $1) AS g`,
    [count],
  );
}

/** Turns this database back into one that predates migration 0006. */
async function forgetMigration0006() {
  await db.query("DROP TABLE event_backfills");
  await db.query("DELETE FROM schema_migrations WHERE version = '0006_event_backfills'");
}

describe("the one-time user snapshot backfill", () => {
  it("marks itself done on a fresh database without publishing anything but root's creation", async () => {
    await start(1);
    // Subscribed from here on, before any backfill could publish.
    reader = await startEventReader(running[0]!.config.CANOPY_NATS_URL, running[0]!.stream);
    expect(await backfillRow()).toEqual({ last_id: 0, done: true });
    expect(await recordedUpdates()).toEqual([]);
    const { rows } = await db.query<{ envelope: Buffer }>("SELECT envelope FROM outbox");
    const created = rows.map((r) => payloadOf(events.Event.decode(r.envelope), AUTH_EVENTS.userCreated));
    expect(created.map((p) => p?.user)).toEqual(await storedSnapshots());
    expect(created[0]?.user).toMatchObject({ username: "root", admin: true, state: "active" });
    await stopAll();
  });

  it("publishes one snapshot per existing user, once, when two replicas start together", async () => {
    await insertExistingUsers(2499);
    await forgetMigration0006();
    await start(2);

    const recorded = await recordedUpdates();
    const stored = await storedSnapshots();
    expect(stored).toHaveLength(2500);
    expect(recorded.map((r) => r.user)).toEqual(stored);
    // Each replica's relay publishes what it finds unclaimed; a batch the other relay holds at that
    // moment is published by that one a moment later.
    await waitFor("every snapshot published", async () =>
      (await recordedUpdates()).every((r) => r.published),
    );
    expect(await backfillRow()).toEqual({ last_id: stored.at(-1)!.userId, done: true });

    // And on the stream, each exactly once (JetStream drops a republished event by its id).
    const ids = new Set(recorded.map((r) => r.eventId));
    const onStream = () => reader!.received.filter((e) => ids.has(e.id));
    await waitFor("every snapshot on the stream", () => onStream().length >= ids.size, 30_000);
    expect(new Set(onStream().map((e) => e.id)).size).toBe(onStream().length);
    expect(onStream()).toHaveLength(2500);

    // Restarting publishes nothing more.
    await stopAll();
    await start(2);
    expect(await recordedUpdates()).toHaveLength(2500);
    await stopAll();
  });

  it("resumes after the last batch a stopped replica committed", async () => {
    const stored = await storedSnapshots();
    const resumeAfter = stored[1499]!.userId;
    const before = (await recordedUpdates()).length;
    await db.query("UPDATE event_backfills SET last_id = $1, done_at = NULL", [resumeAfter]);
    await start(1);
    const added = (await recordedUpdates()).slice(before);
    expect(added.map((r) => r.user)).toEqual(stored.slice(1500));
    expect(await backfillRow()).toEqual({ last_id: stored.at(-1)!.userId, done: true });
    await stopAll();
  });
});
