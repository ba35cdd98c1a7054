import { Pool, type PoolClient, types } from "pg";
import { status } from "@grpc/grpc-js";
import { CanopyError } from "./errors";
import { forgetRecorded, publishRecorded } from "./events/after-commit";
import { requestContext } from "./request-context";

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
  /** More of PostgreSQL's settings for every connection (e.g. `{ enable_seqscan: "off" }`). */
  settings?: Record<string, string>;
}

export function createPool({ url, schema, max = 10, applicationName, settings = {} }: PoolOptions): Pool {
  const more = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  const pool = new Pool({
    connectionString: url,
    max,
    application_name: applicationName ?? `canopy-${schema}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // jit=off: a service's statements are short, and PostgreSQL's JIT compiles any plan whose cost
    // estimate passes 100,000 (a subtree range over a million groups does): 30+ ms of compiling for
    // a statement that runs in under one.
    options: `-c search_path=${schema},public -c jit=off${more.join("")}`,
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

/** Time left for COMMIT itself: a transaction is refused unless this much of its call's deadline remains. */
const COMMIT_RESERVE_MS = 100;

/**
 * A call's first transaction whose work outlasted the call's deadline (RequestContext.commitBy)
 * fails instead of committing: the caller was answered 503, and a write it was told failed must
 * not be there when it tries again.
 */
function refuseLateCommit(): void {
  const call = requestContext.getStore();
  if (call?.commitBy === undefined) return;
  if (Date.now() > call.commitBy - COMMIT_RESERVE_MS)
    throw new CanopyError(
      status.DEADLINE_EXCEEDED,
      { resource: "", publicMessage: "", fieldErrors: {}, httpStatus: 0, errorBody: false },
      "the call's deadline passed before its transaction could commit: rolled back",
    );
}

/**
 * Runs `work` in one transaction; rolls back if it throws, or if it is a call's first and the
 * call's deadline has passed. Events recorded in it are published after COMMIT, before this
 * resolves (see events/after-commit.ts).
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await begin(pool);
  let result: T;
  try {
    result = await work(client);
    refuseLateCommit();
    await client.query("COMMIT");
    const call = requestContext.getStore();
    if (call) call.commitBy = undefined;
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

/**
 * Waits between tries of a transaction's first round trip (2.55 s in all, inside a caller's usual
 * 5 s deadline): long enough for a PostgreSQL restart or a failover to finish.
 */
const BEGIN_RETRY_DELAYS_MS = [50, 100, 200, 400, 800, 1_000];

/** SQLSTATEs and socket errors of a connection PostgreSQL dropped, or of a server not accepting yet. */
const CONNECTION_LOST = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "57P01", // admin_shutdown: a restart ended this connection
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

const isConnectionLoss = (err: unknown) =>
  CONNECTION_LOST.has((err as { code?: string }).code ?? "") ||
  /Connection terminated|connection timeout/i.test((err as Error).message ?? "");

/**
 * A client with a transaction begun. A connection that turns out dead at BEGIN (PostgreSQL
 * restarted since it was pooled) or a server not back yet is tried again on a new connection, for a
 * while: nothing of the caller's work ran yet, so a request arriving during a restart waits it out
 * instead of failing. A transaction already under way when the connection goes fails as before
 * (its work may have done more than SQL).
 */
async function begin(pool: Pool): Promise<PoolClient> {
  for (let attempt = 0; ; attempt++) {
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query("BEGIN");
      return client;
    } catch (err) {
      // Released with the error: the pool closes it instead of handing it out again.
      client?.release(err as Error);
      const delay = BEGIN_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isConnectionLoss(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
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
