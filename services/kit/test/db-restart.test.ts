// withTransaction across a PostgreSQL restart, on a server of the test's own (the machine's is
// shared): a transaction that starts while the server is down or coming back waits it out.
import { createPool, withTransaction, type Pool } from "@canopy/kit";
import { OwnPostgres } from "@canopy/kit/testing";

let pg: OwnPostgres;
let pool: Pool;

beforeAll(async () => {
  pg = await OwnPostgres.start();
  pool = createPool({ url: pg.url, schema: "public", max: 2 });
  await pool.query("CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL)");
}, 60_000);
afterAll(async () => {
  await pool?.end();
  pg?.dispose();
});

const notes = async () => (await pool.query("SELECT body FROM notes ORDER BY id")).rows.map((r) => r.body);

it("begins once the server is back when it starts while PostgreSQL is down, and runs its work once", async () => {
  await pool.query("SELECT 1"); // a pooled connection, which the stop leaves dead
  await pg.stop();
  let runs = 0;
  const written = withTransaction(pool, async (tx) => {
    runs++;
    await tx.query("INSERT INTO notes (body) VALUES ('during the restart')");
    return "written";
  });
  await new Promise((r) => setTimeout(r, 500));
  await pg.start();
  // Before: the first connection refused (or the dead pooled one) failed the transaction.
  await expect(written).resolves.toBe("written");
  expect(runs).toBe(1);
  expect(await notes()).toEqual(["during the restart"]);
}, 30_000);

it("still fails, after its tries, when the server stays away", async () => {
  await pg.stop();
  try {
    await expect(withTransaction(pool, async () => "never")).rejects.toThrow(/ECONNREFUSED/);
  } finally {
    await pg.start();
  }
}, 30_000);
