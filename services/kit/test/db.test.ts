import { createPool, withAdvisoryLock, withTransaction, type Pool } from "@canopy/kit";
import { throwawaySchema, sleep } from "./support/infra";

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ pool, drop } = await throwawaySchema({ prefix: "kit_test_" }));
  await pool.query("CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL)");
});
afterAll(() => drop());

const noteCount = async () => (await pool.query("SELECT count(*) AS n FROM notes")).rows[0].n as number;

describe("createPool", () => {
  it("returns int8 columns as JavaScript numbers", async () => {
    const { rows } = await pool.query("SELECT 9007199254740991::bigint AS big, count(*) AS n FROM notes");
    expect(rows[0]).toEqual({ big: 9007199254740991, n: 0 });
  });

  it("tags connections with an application name", async () => {
    const { rows } = await pool.query("SELECT current_setting('application_name') AS name");
    expect(rows[0].name).toMatch(/^canopy-kit_test_/);
  });

  it("fails fast, not hangs, when the database does not answer", async () => {
    const nowhere = createPool({ url: "postgres://postgres@127.0.0.1:1/none", schema: "public" });
    await expect(nowhere.query("SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
    await nowhere.end();
  });
});

describe("withTransaction", () => {
  it("commits what the work wrote and returns its result", async () => {
    const before = await noteCount();
    const id = await withTransaction(pool, async (tx) => {
      const { rows } = await tx.query("INSERT INTO notes (body) VALUES ('kept') RETURNING id");
      return rows[0].id as number;
    });
    expect(typeof id).toBe("number");
    expect(await noteCount()).toBe(before + 1);
  });

  it("rolls back everything and rethrows when the work throws", async () => {
    const before = await noteCount();
    const failure = withTransaction(pool, async (tx) => {
      await tx.query("INSERT INTO notes (body) VALUES ('lost')");
      throw new Error("changed my mind");
    });
    await expect(failure).rejects.toThrow("changed my mind");
    expect(await noteCount()).toBe(before);
  });

  it("gives the connection back to the pool after a failure", async () => {
    const small = createPool({ url: process.env.CANOPY_DATABASE_URL!, schema: "public", max: 1 });
    await expect(withTransaction(small, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect((await small.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    await small.end();
  });
});

describe("withAdvisoryLock", () => {
  it("runs holders of the same key one after the other", async () => {
    const timeline: string[] = [];
    const holder = (name: string) =>
      withAdvisoryLock(pool, "kit-test-lock", async () => {
        timeline.push(`${name} in`);
        await sleep(100);
        timeline.push(`${name} out`);
      });
    await Promise.all([holder("a"), holder("b")]);
    expect(timeline).toHaveLength(4);
    expect(timeline[1]).toBe(`${timeline[0]!.split(" ")[0]} out`);
  });
});
