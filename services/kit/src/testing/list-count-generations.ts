import type { Pool, PoolClient } from "../db";

/**
 * How the generations of a service's kept list counts (list_count_generations) moved, as
 * [scope 0, a user's scope], when transactions bumped both together in each way below.
 */
export interface BumpObservations {
  /** Whether a second writer's bump had to wait for a first writer that has not committed. */
  secondWriterWaited: boolean;
  /**
   * Whether a second writer's commit had to wait for a first writer whose bumps are made (its
   * commit under way) on a connection of another shard (groups' migration 0016).
   */
  secondCommitWaited: boolean;
  /** One committed transaction that bumped twice; one rolled back. */
  committedTwice: [number, number];
  rolledBack: [number, number];
  /** A bump in a savepoint rolled back, then the transaction committed: alone; with another bump after. */
  savepointRolledBack: [number, number];
  savepointRolledBackThenBumped: [number, number];
}

/** A user's scope no real user has (ids come from a sequence starting at 1). */
const USER_SCOPE = 2 ** 40 + Math.floor(Math.random() * 2 ** 20);
const BUMP = `SELECT bump_list_count_generations(ARRAY[0, ${USER_SCOPE}]::bigint[])`;

const generations = async (db: Pool): Promise<[number, number]> => {
  const { rows } = await db.query<{ scope: string; generation: string }>(
    `SELECT scope, sum(generation)::bigint AS generation FROM list_count_generations
      WHERE scope = ANY($1::bigint[]) GROUP BY scope`,
    [[0, USER_SCOPE]],
  );
  const of = (scope: number) => Number(rows.find((r) => Number(r.scope) === scope)?.generation ?? 0);
  return [of(0), of(USER_SCOPE)];
};

/** Generations gained by the statements `body`, run on a client of their own. */
async function gained(pool: Pool, body: string[]): Promise<[number, number]> {
  const before = await generations(pool);
  const client = await pool.connect();
  try {
    for (const sql of body) await client.query(sql);
  } finally {
    client.release();
  }
  const after = await generations(pool);
  return [after[0] - before[0], after[1] - before[1]];
}

async function secondWriterWaits(pool: Pool): Promise<boolean> {
  const first: PoolClient = await pool.connect();
  const second: PoolClient = await pool.connect();
  try {
    await first.query("BEGIN");
    await first.query(BUMP);
    await second.query("BEGIN");
    await second.query("SET LOCAL lock_timeout = '500ms'");
    try {
      await second.query(BUMP);
      await second.query("COMMIT");
      return false;
    } catch {
      await second.query("ROLLBACK");
      return true;
    } finally {
      await first.query("COMMIT");
    }
  } finally {
    first.release();
    second.release();
  }
}

async function secondCommitWaits(pool: Pool): Promise<boolean> {
  const shardOf = async (c: PoolClient) =>
    Number((await c.query("SELECT pg_backend_pid() % 16 AS shard")).rows[0].shard);
  const first: PoolClient = await pool.connect();
  const others: PoolClient[] = [];
  try {
    let second: PoolClient | undefined;
    for (let i = 0; i < 4 && !second; i++) {
      const c = await pool.connect();
      others.push(c);
      if ((await shardOf(c)) !== (await shardOf(first))) second = c;
    }
    if (!second) throw new Error("no two connections of different shards in the pool");
    await first.query("BEGIN");
    await first.query(BUMP);
    // Runs the deferred bump now, as COMMIT would: its rows stay locked until the commit ends.
    await first.query("SET CONSTRAINTS ALL IMMEDIATE");
    await second.query("BEGIN");
    await second.query("SET LOCAL lock_timeout = '500ms'");
    try {
      await second.query(BUMP);
      await second.query("COMMIT");
      return false;
    } catch {
      await second.query("ROLLBACK");
      return true;
    } finally {
      await first.query("COMMIT");
    }
  } finally {
    first.release();
    for (const c of others) c.release();
  }
}

/**
 * Bumps scope 0 and a user's scope of the service whose schema `pool` is on, the way its triggers
 * do (bump_list_count_generations), and reports what happened: a service's tests expect the bumps
 * to be made at commit (groups' migration 0015, projects' 0012).
 */
export async function observeListCountBumps(pool: Pool): Promise<BumpObservations> {
  await gained(pool, [BUMP]); // the user's scope row exists from here on
  return {
    secondWriterWaited: await secondWriterWaits(pool),
    secondCommitWaited: await secondCommitWaits(pool),
    committedTwice: await gained(pool, ["BEGIN", BUMP, BUMP, "COMMIT"]),
    rolledBack: await gained(pool, ["BEGIN", BUMP, "ROLLBACK"]),
    savepointRolledBack: await gained(pool, [
      "BEGIN",
      "SAVEPOINT s",
      BUMP,
      "ROLLBACK TO SAVEPOINT s",
      "COMMIT",
    ]),
    savepointRolledBackThenBumped: await gained(pool, [
      "BEGIN",
      "SAVEPOINT s",
      BUMP,
      "ROLLBACK TO SAVEPOINT s",
      BUMP,
      "COMMIT",
    ]),
  };
}
