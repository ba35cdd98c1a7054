/**
 * A sync is finished by the groups service's answer as soon as it arrives, not after this service's
 * copy of the memberships has taken the member events recorded before it: the copy's consumer is
 * held up here by a row lock on the very membership it must write, and the sync still finishes.
 * The events are recorded in the service's own outbox (the stream does not care who publishes).
 * The service runs on a database and stream of its own: on the shared ones, the copy's consumer
 * would first work through every other suite's group events, and another suite's replica could
 * hold the member event (stuck on this test's lock) until its ack wait ran out.
 */
import { createPool, recordEvent, withTransaction, type Pool, type PoolClient } from "@canopy/kit";
import { ldapServiceDefinition } from "@canopy/ldap";
import { GROUPS_EVENTS } from "@canopy/protos";
import {
  startTestService,
  throwawayDatabase,
  waitFor,
  type TestService,
  type ThrowawayDatabase,
} from "@canopy/kit/testing";

/** What the test uses of the running service: its pool (to record events) and its stop. */
let service: Pick<TestService<never, never>, "pool" | "stop">;
let db: Pool;
let blocker: PoolClient | undefined;
let own: ThrowawayDatabase;
beforeAll(async () => {
  own = await throwawayDatabase("canopy_test_ldap_answers_");
  service = await startTestService(ldapServiceDefinition, {
    env: { ...own.env, CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0" },
  });
  db = createPool({ url: own.url, schema: "ldap" });
});
afterAll(async () => {
  await blocker?.query("ROLLBACK").catch(() => undefined);
  blocker?.release();
  await db?.end();
  await service?.stop();
  await own?.drop();
});

const syncOf = async (groupId: number) =>
  (await db.query("SELECT status, error FROM group_syncs WHERE group_id = $1", [groupId])).rows[0];
const copied = async (groupId: number, userId: number) =>
  (
    await db.query("SELECT access_level FROM group_members WHERE namespace_id = $1 AND user_id = $2", [
      groupId,
      userId,
    ])
  ).rowCount === 1;

it("finishes a sync on its answer while the copy of its members is still behind", async () => {
  const groupId = 910_000_000 + Math.floor(Math.random() * 1_000_000);
  const userId = groupId + 1;
  await db.query(
    "INSERT INTO group_syncs (group_id, status, generation, last_sync_at) VALUES ($1, 'started', 7, now())",
    [groupId],
  );
  // The copy's consumer will wait on this uncommitted row (the same key) until it is rolled back.
  blocker = await db.connect();
  await blocker.query("BEGIN");
  await blocker.query("INSERT INTO group_members (namespace_id, user_id, access_level) VALUES ($1, $2, 10)", [
    groupId,
    userId,
  ]);
  await withTransaction(service.pool, async (tx) => {
    await recordEvent(tx, GROUPS_EVENTS.memberAdded, {
      member: { groupId, userId, accessLevel: 30, expiresAt: "", createdById: 0 },
    });
    await recordEvent(tx, GROUPS_EVENTS.ldapMembersApplied, {
      groupId,
      generation: 7,
      added: 1,
      updated: 0,
      removed: 0,
      keptLastOwner: 0,
      unknownUsers: 0,
      error: "",
      stale: false,
    });
  });
  await waitFor("the sync finished", async () => (await syncOf(groupId))?.status === "ready", 15_000);
  expect(await syncOf(groupId)).toEqual({ status: "ready", error: null });
  expect(await copied(groupId, userId)).toBe(false);
  // Let the copy go: it takes the member event, in order, as before.
  await blocker.query("ROLLBACK");
  blocker.release();
  blocker = undefined;
  await waitFor("the membership copied", () => copied(groupId, userId), 15_000);
}, 40_000);

it("takes an answer once: a stale one, or one of another generation, finishes nothing", async () => {
  const groupId = 920_000_000 + Math.floor(Math.random() * 1_000_000);
  await db.query(
    "INSERT INTO group_syncs (group_id, status, generation, last_sync_at) VALUES ($1, 'started', 3, now())",
    [groupId],
  );
  const answer = { groupId, added: 0, updated: 0, removed: 0, keptLastOwner: 0, unknownUsers: 0, error: "" };
  await withTransaction(service.pool, async (tx) => {
    await recordEvent(tx, GROUPS_EVENTS.ldapMembersApplied, { ...answer, generation: 3, stale: true });
    await recordEvent(tx, GROUPS_EVENTS.ldapMembersApplied, { ...answer, generation: 2, stale: false });
    await recordEvent(tx, GROUPS_EVENTS.ldapMembersApplied, {
      ...answer,
      generation: 3,
      stale: false,
      error: "The group no longer exists",
    });
  });
  await waitFor("the sync failed", async () => (await syncOf(groupId))?.status === "failed", 15_000);
  expect(await syncOf(groupId)).toEqual({ status: "failed", error: "The group no longer exists" });
}, 20_000);
