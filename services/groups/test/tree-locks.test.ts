/**
 * Tree locks (store/namespaces.ts lockTreesOf): every structural change of a tree first locks its
 * root row, several roots always in id order. A group may move into another tree between the first
 * read and the lock; the command must then let its lock go before taking the new roots, or it waits
 * for a lower root while holding a higher one, and a transaction locking in id order deadlocks with it.
 */
import type { PoolClient } from "pg";
import { startHarness, unique, waitFor, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/** Backends of this database waiting for a row lock, other than `except`. */
async function waitingOnLocks(except: number[]): Promise<number> {
  const { rows } = await h.db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> ALL($1::int[])`,
    [except],
  );
  return rows[0].n;
}

async function session(): Promise<{ client: PoolClient; pid: number }> {
  const client = await h.db.connect();
  const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
  await client.query("BEGIN");
  return { client, pid: rows[0].pid };
}

it("a subgroup created while its parent moves to a tree with a lower root neither deadlocks nor fails", async () => {
  const owner = await h.newUser();
  const low = await h.newGroup(owner, { path: unique("low_") });
  const high = await h.newGroup(owner, { path: unique("high_") });
  const parent = await h.newGroup(owner, { path: "moving" }, high.id);
  expect(low.id).toBeLessThan(high.id);

  // A transfer in progress holds the higher root; another change holds the lower one.
  const mover = await session();
  const other = await session();
  const pids = [mover.pid, other.pid];
  try {
    await mover.client.query("SELECT 1 FROM namespaces WHERE id = $1 FOR UPDATE", [high.id]);
    // NO KEY UPDATE: it still excludes the create's FOR UPDATE, but lets the transfer's foreign-key
    // check on the new parent through.
    await other.client.query("SELECT 1 FROM namespaces WHERE id = $1 FOR NO KEY UPDATE", [low.id]);
    const creating = h.rpc.createGroup({
      actor: owner.actor,
      attributes: { name: "child", path: "child" },
      parentId: parent.id,
    });
    await waitFor("the create to wait for the higher root", async () => (await waitingOnLocks(pids)) >= 1);
    // The transfer moves the parent under the lower root and commits.
    await mover.client.query(
      `UPDATE namespaces SET parent_id = $1, traversal_ids = ARRAY[$1::bigint, id],
              full_path = $2 || '/' || path, full_name = $3 || ' / ' || name WHERE id = $4`,
      [low.id, low.fullPath, low.fullName, parent.id],
    );
    await mover.client.query("COMMIT");
    await waitFor("the create to wait for the lower root", async () => (await waitingOnLocks(pids)) >= 1);
    // The other change, locking in id order, now wants the higher root too.
    await other.client.query("SET LOCAL lock_timeout = '10s'");
    await other.client.query("SELECT 1 FROM namespaces WHERE id = $1 FOR UPDATE", [high.id]);
    await other.client.query("COMMIT");
    const created = await creating;
    expect(created.group).toMatchObject({ parentId: parent.id, fullPath: `${low.path}/moving/child` });
    const { rows } = await h.db.query("SELECT traversal_ids FROM namespaces WHERE id = $1", [
      created.group!.id,
    ]);
    expect(rows[0].traversal_ids).toEqual([low.id, parent.id, created.group!.id]);
  } finally {
    for (const s of [mover, other]) {
      await s.client.query("ROLLBACK").catch(() => undefined);
      s.client.release();
    }
  }
});
