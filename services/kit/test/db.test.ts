import { status } from "@grpc/grpc-js";
import { createPool, toServiceError, withAdvisoryLock, withTransaction, type Pool } from "@canopy/kit";
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

describe("a database connection that goes away (a PostgreSQL restart, a failover)", () => {
  /** A checked-out client whose server process is ended under it, as a restart ends every one. */
  async function terminatedClient() {
    const client = await pool.connect();
    const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
    const ended = new Promise((resolve) => client.once("end", resolve));
    await pool.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
    await ended;
    return client;
  }

  it("fails the next query of a checked-out client, and the process and the pool go on", async () => {
    // Without a listener for the client's 'error' event, the end of its connection throws in this
    // process (pg-pool listens only while a client is idle in the pool).
    const client = await terminatedClient();
    await expect(client.query("SELECT 1")).rejects.toThrow();
    client.release(true);
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("answers UNAVAILABLE (503, worth a retry) for a database that is away, INTERNAL for a bug", async () => {
    const client = await terminatedClient();
    const terminated = await client.query("SELECT 1").catch((err: unknown) => err);
    client.release(true);
    const nowhere = createPool({ url: "postgres://postgres@127.0.0.1:1/none", schema: "public" });
    const refused = await nowhere.query("SELECT 1").catch((err: unknown) => err);
    await nowhere.end();
    const bug = await pool.query("SELECT FROM no_such_table").catch((err: unknown) => err);
    expect([terminated, refused, bug].map((err) => toServiceError(err).code)).toEqual([
      status.UNAVAILABLE,
      status.UNAVAILABLE,
      status.INTERNAL,
    ]);
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
