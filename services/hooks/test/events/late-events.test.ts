/**
 * With two replicas of the hooks service, the events of one stream are applied out of order now and
 * then: replica A holds a member event while replica B applies the group's creation *and removal*.
 * The member event then names a group that no longer exists; it must still reach the ancestors'
 * hooks (GitLab fired it when it happened) and must not wait for a group that will never come back
 * (CI saw it dead-lettered after ten attempts).
 */
import path from "node:path";
import { BatchScope, createPool, migrate, readMigrations, type Pool } from "@canopy/kit";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { GROUPS_EVENTS, events, groupEvents } from "@canopy/protos";
import type { Deps } from "../../src/deps";
import { applyEvent } from "../../src/events/hook-events";

let database: ThrowawayDatabase;
let db: Pool;
let seq = 0;

const deps = { plan: { groupWebhooks: true }, config: { CANOPY_HOOK_AUTO_DISABLE: true } } as unknown as Deps;

beforeAll(async () => {
  database = await throwawayDatabase("canopy_hooks_late_");
  db = createPool({ url: database.url, schema: "hooks" });
  await migrate(db, "hooks", await readMigrations(path.join(__dirname, "..", "..", "migrations")));
});
afterAll(async () => {
  await db?.end();
  await database?.drop();
});

function envelope<T>(kind: { type: string; codec: { encode(m: T): { finish(): Uint8Array } } }, payload: T) {
  seq += 1;
  return events.Event.fromPartial({
    id: `late-${seq}`,
    type: kind.type,
    occurredAt: new Date(),
    payload: Buffer.from(kind.codec.encode(payload).finish()),
  });
}

const apply = async (event: events.Event) => {
  const tx = await db.connect();
  try {
    await tx.query("BEGIN");
    // As the kit's consumer does: the event in a batch of its own, its deliveries written at the end.
    const batch = new BatchScope([event]);
    await applyEvent(deps, event, tx, { streamSequence: Number(event.id.replace("late-", "")), batch });
    await batch.finish();
    await tx.query("COMMIT");
  } catch (err) {
    await tx.query("ROLLBACK");
    throw err;
  } finally {
    tx.release();
  }
};

const group = (id: number, parent?: { id: number; path: string }) =>
  groupEvents.NamespaceSnapshot.fromPartial({
    id,
    kind: "group",
    parentId: parent?.id ?? 0,
    traversalIds: parent ? [parent.id, id] : [id],
    path: `g${id}`,
    name: `G ${id}`,
    fullPath: parent ? `${parent.path}/g${id}` : `g${id}`,
    fullName: `G ${id}`,
    visibilityLevel: 0,
  });

async function hookOn(groupId: number): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO hooks (group_id, url_sealed, url_variables_sealed, custom_headers_sealed, signing_secret_sealed,
                        member_events, subgroup_events, project_events, created_at)
     VALUES ($1, '\\x00', '\\x00', '\\x00', '\\x00', true, true, true, now() - interval '1 hour') RETURNING id`,
    [groupId],
  );
  return Number(rows[0]!.id);
}

const deliveriesOf = async (hookId: number) =>
  (
    await db.query<{ trigger: string; payload: { event_name: string; group_id: number } }>(
      "SELECT trigger, payload FROM deliveries WHERE hook_id = $1 ORDER BY seq",
      [hookId],
    )
  ).rows.map((r) => `${r.payload.event_name}:${r.payload.group_id}`);

it("a member event applied after its group's removal reaches the ancestors' hooks", async () => {
  const root = group(9001);
  const sub = group(9002, { id: 9001, path: "g9001" });
  const rootHook = await hookOn(root.id);
  await apply(envelope(GROUPS_EVENTS.groupCreated, { group: root, creatorId: 1 }));
  await apply(envelope(GROUPS_EVENTS.groupCreated, { group: sub, creatorId: 1 }));
  const memberAdded = envelope(GROUPS_EVENTS.memberAdded, {
    member: { groupId: sub.id, userId: 77, accessLevel: 30, expiresAt: "", createdById: 1 },
  });
  // The removal came later in the stream (a higher sequence) but was applied first, by the other replica.
  await apply(envelope(GROUPS_EVENTS.groupRemoved, { group: sub }));
  await apply(memberAdded);

  expect(await deliveriesOf(rootHook)).toEqual([
    "subgroup_create:9002",
    "user_add_to_group:9002",
    "subgroup_destroy:9002",
  ]);
  // The removed group keeps no members in the copies.
  const { rows } = await db.query("SELECT 1 FROM group_members WHERE namespace_id = $1", [sub.id]);
  expect(rows).toEqual([]);
});

it("a subgroup created under a parent already removed reaches the grandparent's hooks", async () => {
  const root = group(9101);
  const parent = group(9102, { id: 9101, path: "g9101" });
  const child = {
    ...group(9103),
    parentId: 9102,
    traversalIds: [9101, 9102, 9103],
    fullPath: "g9101/g9102/g9103",
  };
  const rootHook = await hookOn(root.id);
  await apply(envelope(GROUPS_EVENTS.groupCreated, { group: root, creatorId: 1 }));
  await apply(envelope(GROUPS_EVENTS.groupCreated, { group: parent, creatorId: 1 }));
  const childCreated = envelope(GROUPS_EVENTS.groupCreated, { group: child, creatorId: 1 });
  await apply(envelope(GROUPS_EVENTS.groupRemoved, { group: parent }));
  await apply(childCreated);
  expect(await deliveriesOf(rootHook)).toEqual([
    "subgroup_create:9102",
    "subgroup_create:9103",
    "subgroup_destroy:9102",
  ]);
  const { rows } = await db.query("SELECT removed_at FROM namespaces WHERE id = 9102");
  expect(rows[0].removed_at).not.toBeNull();
});

it("a late update does not bring a removed group back", async () => {
  const g = group(9201);
  await apply(envelope(GROUPS_EVENTS.groupCreated, { group: g, creatorId: 1 }));
  const renamed = envelope(GROUPS_EVENTS.groupUpdated, {
    group: { ...g, name: "New" },
    changed: ["name"],
    oldFullPath: "",
  });
  await apply(envelope(GROUPS_EVENTS.groupRemoved, { group: g }));
  await apply(renamed);
  const { rows } = await db.query("SELECT name, removed_at FROM namespaces WHERE id = 9201");
  expect(rows[0].removed_at).not.toBeNull();
});
