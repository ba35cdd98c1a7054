import { Pool, type PoolClient, types } from "pg";
import { forgetRecorded, publishRecorded } from "./events/after-commit";

// int8 (bigint ids, counts) as JS numbers: ids stay far below 2^53.
types.setTypeParser(types.builtins.INT8, (v) => Number(v));
// bigint[] (traversal ids) likewise: pg's default leaves their elements as strings.
const INT8_ARRAY = 1016 as Parameters<typeof types.getTypeParser>[0];
const parseInt8Array = types.getTypeParser(INT8_ARRAY);
types.setTypeParser(INT8_ARRAY, (v) => (parseInt8Array(v) as string[]).map(Number));

export type { Pool, PoolClient };
export type Queryable = Pick<PoolClient, "query">;

export interface PoolOptions {
  url: string;
  /** Sets the search_path so a service's queries name its own tables unqualified. */
  schema: string;
  max?: number;
  applicationName?: string;
}

export function createPool({ url, schema, max = 10, applicationName }: PoolOptions): Pool {
  const pool = new Pool({
    connectionString: url,
    max,
    application_name: applicationName ?? `canopy-${schema}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // jit=off: a service's statements are short, and PostgreSQL's JIT compiles any plan whose cost
    // estimate passes 100,000 (a subtree range over a million groups does): 30+ ms of compiling for
    // a statement that runs in under one.
    options: `-c search_path=${schema},public -c jit=off`,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // Nor one that is checked out between two queries (a transaction waiting on NATS or gRPC, a
  // listener): pg-pool listens only while a client is idle, and an 'error' event nobody listens to
  // kills the process (the fault suite's PostgreSQL restart did). Its next query fails instead, and
  // the pool drops it on release.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/**
 * Runs `work` in one transaction; rolls back if it throws. Events recorded in it are published after
 * COMMIT, before this resolves (see events/after-commit.ts).
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query("BEGIN");
    result = await work(client);
    await client.query("COMMIT");
  } catch (err) {
    forgetRecorded(client);
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  await publishRecorded(pool, client);
  return result;
}

/** Holds a session-level advisory lock for the duration of `work`, so only one replica runs it at once. */
export async function withAdvisoryLock<T>(pool: Pool, key: string, work: (client: PoolClient) => Promise<T>) {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [key]);
    try {
      return await work(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
    }
  } finally {
    client.release();
  }
}
