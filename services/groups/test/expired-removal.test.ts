/**
 * The daily removal of expired memberships and shares (GitLab's RemoveExpiredMembersWorker and
 * RemoveExpiredGroupLinksWorker): what goes, what stays, the events, and replicas running at once.
 *
 * Other files running meanwhile may have expired rows of their own, which a pass here removes too:
 * they give no access either way, and every assertion here is about this file's groups only.
 */
import { events, GROUPS_EVENTS, type groupEvents } from "@canopy/protos";
import { withTransaction } from "@canopy/kit";
import { startTestService, utcDate, waitFor } from "@canopy/kit/testing";
import { groupsServiceDefinition } from "../src/service";
import { removeExpiredBatch, runExpiredRemovals } from "../src/commands/expired-removal";
import { startHarness, type Harness, type TestUser } from "./support";

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
});
afterAll(() => h.stop());

async function member(groupId: number, expiresAt: string | null) {
  const u = await h.newUser();
  await h.db.query(
    "INSERT INTO members (namespace_id, user_id, access_level, expires_at) VALUES ($1, $2, 30, $3)",
    [groupId, u.user.id, expiresAt],
  );
  return u.user.id;
}

async function memberIds(groupId: number) {
  const { rows } = await h.db.query<{ user_id: number }>(
    "SELECT user_id FROM members WHERE namespace_id = $1 ORDER BY user_id",
    [groupId],
  );
  return rows.map((r) => r.user_id);
}

/** The outbox's payloads of one kind, decoded, that `mine` selects. */
async function recorded<T>(
  kind: { subject: string; codec: { decode(b: Uint8Array): T } },
  mine: (p: T) => boolean,
): Promise<{ payload: T; actor: events.Event["actor"] }[]> {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [kind.subject],
  );
  return rows
    .map((r) => events.Event.decode(r.envelope))
    .map((e) => ({ payload: kind.codec.decode(e.payload), actor: e.actor }))
    .filter((e) => mine(e.payload));
}
const removedIn = (groupId: number) =>
  recorded(GROUPS_EVENTS.memberRemoved, (p: groupEvents.MemberRemoved) => p.member?.groupId === groupId);

it("removes memberships that expired today or before, with a MemberRemoved each and no actor, and keeps the rest", async () => {
  const g = await h.newGroup(owner);
  const yesterday = await member(g.id, utcDate(-1));
  const today = await member(g.id, utcDate(0));
  const tomorrow = await member(g.id, utcDate(1));
  const forever = await member(g.id, null);
  await runExpiredRemovals(h.groupsService.deps);
  expect(await memberIds(g.id)).toEqual([owner.user.id, tomorrow, forever].sort((a, b) => a - b));
  const removed = await removedIn(g.id);
  expect(removed.map((e) => e.payload.member!.userId).sort()).toEqual([yesterday, today].sort());
  expect(removed[0]!.payload.member).toMatchObject({ groupId: g.id, accessLevel: 30 });
  expect(removed.every((e) => e.actor === undefined)).toBe(true);
});

it("removes an expired Owner too, even the last one (GitLab's worker skips the last-owner rule)", async () => {
  const g = await h.newGroup(owner);
  await h.db.query("UPDATE members SET expires_at = $2 WHERE namespace_id = $1", [g.id, utcDate(-3)]);
  await runExpiredRemovals(h.groupsService.deps);
  expect(await memberIds(g.id)).toEqual([]);
});

it("removes expired shares with a GroupUnshared each, and keeps the others", async () => {
  const shared = await h.newGroup(owner);
  const [gone, kept, open] = [await h.newGroup(owner), await h.newGroup(owner), await h.newGroup(owner)];
  for (const [withGroup, expiresAt] of [
    [gone.id, utcDate(-1)],
    [kept.id, utcDate(2)],
    [open.id, null],
  ] as const)
    await h.db.query(
      "INSERT INTO group_links (shared_group_id, shared_with_group_id, group_access, expires_at) VALUES ($1, $2, 30, $3)",
      [shared.id, withGroup, expiresAt],
    );
  await runExpiredRemovals(h.groupsService.deps);
  const { rows } = await h.db.query<{ shared_with_group_id: number }>(
    "SELECT shared_with_group_id FROM group_links WHERE shared_group_id = $1 ORDER BY 1",
    [shared.id],
  );
  expect(rows.map((r) => r.shared_with_group_id)).toEqual([kept.id, open.id]);
  const unshared = await recorded(
    GROUPS_EVENTS.groupUnshared,
    (p: groupEvents.GroupUnshared) => p.sharedGroupId === shared.id,
  );
  expect(unshared.map((e) => e.payload)).toEqual([{ sharedGroupId: shared.id, sharedWithGroupId: gone.id }]);
});

it("lets replicas run at once: each expired row is removed, and published, exactly once", async () => {
  const g = await h.newGroup(owner);
  const expired: number[] = [];
  for (let i = 0; i < 12; i++) expired.push(await member(g.id, utcDate(-1)));
  const deps = h.groupsService.deps;
  // Small batches, many at once: the passes overlap on the same rows.
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let i = 0; i < 6; i++) await removeExpiredBatch(deps, 2);
    }),
  );
  await runExpiredRemovals(deps);
  expect(await memberIds(g.id)).toEqual([owner.user.id]);
  const removed = (await removedIn(g.id)).map((e) => e.payload.member!.userId);
  expect(removed.sort()).toEqual([...expired].sort());
});

it("skips a row a request holds, and takes it on a later pass", async () => {
  const g = await h.newGroup(owner);
  const held = await member(g.id, utcDate(-1));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const holder = withTransaction(h.db, async (tx) => {
    await tx.query("SELECT 1 FROM members WHERE namespace_id = $1 AND user_id = $2 FOR UPDATE", [g.id, held]);
    locked();
    await released;
  });
  await isLocked;
  await runExpiredRemovals(h.groupsService.deps);
  expect(await memberIds(g.id)).toContain(held);
  release();
  await holder;
  await runExpiredRemovals(h.groupsService.deps);
  expect(await memberIds(g.id)).not.toContain(held);
});

it("runs as soon as a replica starts, so restarts more frequent than the (daily) period cannot starve it", async () => {
  const g = await h.newGroup(owner);
  const expired = await member(g.id, utcDate(-1));
  expect(await memberIds(g.id)).toContain(expired);
  const replica = await startTestService(groupsServiceDefinition, {
    env: { CANOPY_GROUPS_EXPIRED_REMOVAL_MS: "86400000" },
  });
  try {
    await waitFor("the expired membership removed", async () => !(await memberIds(g.id)).includes(expired));
  } finally {
    await replica.stop();
  }
});
