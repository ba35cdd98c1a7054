import type { Pool, PoolClient } from "../db";

/**
 * How the generations of a service's kept list counts (list_count_generations) moved, as
 * [scope 0, a user's scope], when transactions bumped both together in each way below.
 */
export interface BumpObservations {
  /** Whether a second writer's bump had to wait for a first writer that has not committed. */
  secondWriterWaited: boolean;
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
    "SELECT scope, generation FROM list_count_generations WHERE scope = ANY($1::bigint[])",
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

/**
 * Bumps scope 0 and a user's scope of the service whose schema `pool` is on, the way its triggers
 * do (bump_list_count_generations), and reports what happened: a service's tests expect the bumps
 * to be made at commit (groups' migration 0015, projects' 0012).
 */
export async function observeListCountBumps(pool: Pool): Promise<BumpObservations> {
  await gained(pool, [BUMP]); // the user's scope row exists from here on
  return {
    secondWriterWaited: await secondWriterWaits(pool),
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
