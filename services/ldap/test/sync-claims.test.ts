/**
 * The sync's claims in PostgreSQL (store/syncs.ts), raced from several pools as replicas race:
 * every pending group is claimed once, a started group is never claimed again, oldest-synced first,
 * a stale started sync is failed with GitLab's message, and the schedule fires once per period.
 */
import path from "node:path";
import { createPool, migrate, readMigrations, type Pool } from "@canopy/kit";
import { throwawaySchema, testDatabaseUrl, type ThrowawaySchema } from "@canopy/kit/testing";
import { claimPending, claimSchedule, failStale, findSync, markPending } from "../src/store/syncs";

let db: ThrowawaySchema;
const replicas: Pool[] = [];
beforeAll(async () => {
  db = await throwawaySchema({ prefix: "ldap_claims_" });
  await migrate(db.pool, db.schema, await readMigrations(path.join(__dirname, "..", "migrations")));
  for (let i = 0; i < 3; i++)
    replicas.push(createPool({ url: testDatabaseUrl(), schema: db.schema, max: 4 }));
});
afterAll(async () => {
  for (const pool of replicas) await pool.end();
  await db?.drop();
});
beforeEach(() => db.pool.query("TRUNCATE group_syncs, schedules"));

it("claims each pending group once however many replicas claim at once, and never a started one again", async () => {
  for (let id = 1; id <= 20; id++) await markPending(db.pool, id);
  const claims = await Promise.all(
    Array.from({ length: 60 }, (_, i) => claimPending(replicas[i % replicas.length]!)),
  );
  const claimed = claims.filter((c) => c !== undefined).map((c) => c.group_id);
  expect(claimed.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  // Asked again while started: still one sync queued at most, and nothing to claim.
  expect(await markPending(db.pool, 1)).toBe(false);
  expect(await claimPending(db.pool)).toBeUndefined();
  expect(await findSync(db.pool, 1)).toMatchObject({ status: "started", generation: 1 });
});

it("takes never-synced groups first, then the one synced longest ago", async () => {
  await db.pool.query(
    `INSERT INTO group_syncs (group_id, status, pending_since, last_successful_update_at) VALUES
       (1, 'pending', now(), now() - interval '1 hour'), (2, 'pending', now(), now() - interval '2 hours'),
       (3, 'pending', now(), NULL)`,
  );
  const order = [];
  for (let c = await claimPending(db.pool); c; c = await claimPending(db.pool)) order.push(c.group_id);
  expect(order).toEqual([3, 2, 1]);
});

it("fails syncs started too long ago (or with no start) with GitLab's messages", async () => {
  await db.pool.query(
    `INSERT INTO group_syncs (group_id, status, last_sync_at) VALUES
       (1, 'started', now() - interval '2 hours'), (2, 'started', NULL), (3, 'started', now())`,
  );
  expect(await failStale(db.pool, 3600)).toBe(2);
  expect(await findSync(db.pool, 1)).toMatchObject({
    status: "failed",
    error: "The sync took too long to complete.",
  });
  expect(await findSync(db.pool, 2)).toMatchObject({
    status: "failed",
    error: "The sync failed because the group is an inconsistent state",
  });
  expect((await findSync(db.pool, 3))?.status).toBe("started");
});

it("fires the schedule once per period across replicas", async () => {
  const fired = await Promise.all(replicas.map((pool) => claimSchedule(pool, "ldap-all-groups", 3600)));
  expect(fired.filter(Boolean)).toHaveLength(1);
  expect(await claimSchedule(db.pool, "ldap-all-groups", 3600)).toBe(false);
});
