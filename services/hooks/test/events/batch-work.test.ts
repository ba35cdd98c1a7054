/**
 * The events consumer applies a batch of events as one unit (events/batch-work.ts): the groups and
 * users its member and subgroup events name are read once, and its deliveries are written in one
 * statement at the end. What must hold: each payload shows the copies as they stood at its own event
 * (a rename or a user's update earlier in the same batch is seen, a later one is not), and every
 * delivery is written once, in stream order.
 */
import path from "node:path";
import { BatchScope, createPool, migrate, readMigrations, type Pool } from "@canopy/kit";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { AUTH_EVENTS, GROUPS_EVENTS, events, groupEvents } from "@canopy/protos";
import type { Deps } from "../../src/deps";
import { applyEvent } from "../../src/events/hook-events";

let database: ThrowawayDatabase;
let db: Pool;
let seq = 0;

const deps = { plan: { groupWebhooks: true }, config: { CANOPY_HOOK_AUTO_DISABLE: true } } as unknown as Deps;

beforeAll(async () => {
  database = await throwawayDatabase("canopy_hooks_batch_");
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
    id: `batch-${seq}`,
    type: kind.type,
    occurredAt: new Date(),
    payload: Buffer.from(kind.codec.encode(payload).finish()),
  });
}

/** The events in one transaction and one batch, as the kit's consumer applies them. */
async function applyBatch(batchEvents: events.Event[]) {
  const tx = await db.connect();
  try {
    await tx.query("BEGIN");
    const batch = new BatchScope(batchEvents);
    for (const event of batchEvents)
      await applyEvent(deps, event, tx, { streamSequence: Number(event.id.replace("batch-", "")), batch });
    await batch.finish();
    await tx.query("COMMIT");
  } catch (err) {
    await tx.query("ROLLBACK");
    throw err;
  } finally {
    tx.release();
  }
}

const group = (id: number, name: string, parent?: number) =>
  groupEvents.NamespaceSnapshot.fromPartial({
    id,
    kind: "group",
    parentId: parent ?? 0,
    traversalIds: parent ? [parent, id] : [id],
    path: `g${id}`,
    name,
    fullPath: parent ? `g${parent}/g${id}` : `g${id}`,
    fullName: name,
    visibilityLevel: 0,
  });

const user = (userId: number, name: string) => ({
  user: { userId, username: `u${userId}`, name, state: "active", email: `u${userId}@example.com` },
});

it("shows each event the copies as they stood then, and writes the batch's deliveries once, in order", async () => {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO hooks (group_id, url_sealed, url_variables_sealed, custom_headers_sealed, signing_secret_sealed,
                        member_events, subgroup_events, created_at)
     VALUES (9301, '\\x00', '\\x00', '\\x00', '\\x00', true, true, now() - interval '1 hour') RETURNING id`,
  );
  const hookId = Number(rows[0]!.id);
  const member = (accessLevel: number) => ({
    groupId: 9302,
    userId: 501,
    accessLevel,
    expiresAt: "",
    createdById: 1,
  });
  const batch = [
    envelope(GROUPS_EVENTS.groupCreated, { group: group(9301, "Root"), creatorId: 1 }),
    envelope(GROUPS_EVENTS.groupCreated, { group: group(9302, "Sub", 9301), creatorId: 1 }),
    envelope(AUTH_EVENTS.userCreated, events.UserCreated.fromPartial(user(501, "Old Name"))),
    envelope(GROUPS_EVENTS.memberAdded, { member: member(30) }),
    envelope(AUTH_EVENTS.userUpdated, events.UserUpdated.fromPartial(user(501, "New Name"))),
    envelope(GROUPS_EVENTS.groupUpdated, {
      group: group(9302, "Renamed", 9301),
      changed: ["name"],
      oldFullPath: "",
    }),
    envelope(GROUPS_EVENTS.memberUpdated, { member: member(40), oldAccessLevel: 30, oldExpiresAt: "" }),
  ];
  await applyBatch(batch);

  const delivered = await db.query<{ seq: string; payload: Record<string, unknown> }>(
    "SELECT seq, payload FROM deliveries WHERE hook_id = $1 ORDER BY seq",
    [hookId],
  );
  expect(
    delivered.rows.map((r) => [
      r.payload.event_name,
      r.payload.group_name ?? r.payload.name,
      r.payload.user_name,
    ]),
  ).toEqual([
    ["subgroup_create", "Sub", undefined],
    ["user_add_to_group", "Sub", "Old Name"],
    ["user_update_for_group", "Renamed", "New Name"],
  ]);
  expect(delivered.rows.map((r) => Number(r.seq))).toEqual(
    [batch[1]!, batch[3]!, batch[6]!].map((e) => Number(e.id.replace("batch-", ""))),
  );

  // The same batch again (redelivered, its marks lost): nothing is written twice.
  await applyBatch(batch);
  const again = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE hook_id = $1", [hookId]);
  expect(again.rows[0].n).toBe(3);
});
