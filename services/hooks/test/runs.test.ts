/**
 * A worker claims the due deliveries of several hooks as runs (store/deliveries.ts claimRuns) and
 * sends each run in order (worker/send-runs.ts). What must hold: a run is its hook's next deliveries
 * in stream order, one run per hook, it stops before one that is not due (a retry waiting), nothing
 * behind a leased delivery is claimed, a delivery failing in the middle of a run holds the rest back
 * until it succeeds, and the claim's plans stay on indexes however the queue table swells.
 */
import { randomUUID } from "node:crypto";
import { claimRuns, finishRuns, type ClaimLimits } from "../src/store/deliveries";
import { workerPool } from "../src/worker/delivery-worker";
import {
  FAST_RETRIES,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  type HooksStack,
  type User,
} from "./support";

let stack: HooksStack;
let owner: User;

beforeAll(async () => {
  // No workers in the stack's own replica: the claim test works the table by hand.
  stack = await startHooksStack({ hooksEnv: { ...FAST_RETRIES, CANOPY_HOOK_WORKERS: "0" } });
  owner = await newUser(stack);
});
afterAll(() => stack?.stop());

const LEASE = 40;
const HOLD = 300;
const limits = (runLimit: number, hooks = 1): ClaimLimits => ({
  hooks,
  runLimit,
  leaseSeconds: LEASE,
  holdSeconds: HOLD,
});
/** One hook's run (a claim of one hook's runs). */
const claimRun = async (runLimit: number) => (await claimRuns(stack.db, limits(runLimit)))[0] ?? [];

/** Queues `count` deliveries for `hookId` (stream sequences from `seq`), returning their ids in order. */
async function queue(hookId: number, seq: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const { rows } = await stack.db.query<{ id: string }>(
      `INSERT INTO deliveries (hook_id, event_id, seq, trigger, payload, idempotency_key, event_uuid, occurred_at)
       VALUES ($1, $2, $3, 'subgroup_hooks', '{}', $4, $5, now()) RETURNING id`,
      [hookId, randomUUID(), seq + i, randomUUID(), randomUUID()],
    );
    ids.push(Number(rows[0]!.id));
  }
  return ids;
}

describe("claiming a run", () => {
  it("takes a hook's next due deliveries in order, up to the limit and not past one that waits", async () => {
    const group = await newGroup(stack, owner);
    const hook = await newHook(stack, group, owner, { subgroup_events: true });
    const ids = await queue(hook.id, 1_000_000, 6);
    // The fourth waits for a retry: the fifth and sixth must wait behind it.
    await stack.db.query("UPDATE deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1", [
      ids[3],
    ]);

    const two = await claimRun(2);
    expect(two.map((d) => d.id)).toEqual(ids.slice(0, 2));
    expect(two.map((d) => d.attempts)).toEqual([1, 1]);
    // The first is leased: nothing of the hook behind it can be claimed.
    expect(await claimRun(50)).toEqual([]);

    await stack.db.query("UPDATE deliveries SET leased_until = NULL WHERE id = ANY($1::bigint[])", [ids]);
    const run = await claimRun(50);
    expect(run.map((d) => d.id)).toEqual(ids.slice(0, 3));
    await stack.db.query("DELETE FROM deliveries WHERE hook_id = $1", [hook.id]);
  });

  it("takes one run of each of several hooks, and leaves the hooks past the limit to the next claim", async () => {
    const group = await newGroup(stack, owner);
    const hooks = [];
    for (let i = 0; i < 3; i++) hooks.push(await newHook(stack, group, owner, { subgroup_events: true }));
    const queued = [];
    // Interleaved in the stream, as one event's deliveries to three hooks are.
    for (let i = 0; i < 3; i++) queued.push(await queue(hooks[i]!.id, 2_000_000 + i * 10, 3));

    const first = await claimRuns(stack.db, limits(50, 2));
    expect(first).toHaveLength(2);
    const second = await claimRuns(stack.db, limits(50, 2));
    expect(second).toHaveLength(1);
    // Each hook's run whole and in order, every hook once.
    const runs = [...first, ...second].sort((a, b) => a[0]!.hook_id - b[0]!.hook_id);
    expect(runs.map((r) => r.map((d) => d.id))).toEqual(queued);
    expect(await claimRuns(stack.db, limits(50, 8))).toEqual([]);
    await stack.db.query("DELETE FROM deliveries WHERE hook_id = ANY($1::bigint[])", [
      hooks.map((h) => h.id),
    ]);
  });

  it("keeps to indexes after its plans were made on an empty queue that then swelled", async () => {
    const pool = workerPool(stack.hooks.deps, 1);
    const client = await pool.connect();
    try {
      // PostgreSQL keeps a prepared statement's generic plan after five runs: made here, on an
      // empty table, it would scan the table whole from then on.
      for (let i = 0; i < 6; i++) {
        await claimRuns(client, limits(50, 8));
        await finishRuns(client, [], [0]);
      }
      const group = await newGroup(stack, owner);
      const hook = await newHook(stack, group, owner, { subgroup_events: true });
      await queue(hook.id, 3_000_000, 200);
      await stack.db.query("DELETE FROM deliveries WHERE hook_id = $1", [hook.id]);
      const plans = [
        `EXPLAIN EXECUTE "hooks-claim-runs"(8, 50, ${LEASE}, ${HOLD})`,
        `EXPLAIN EXECUTE "hooks-finish-runs"('{1}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}')`,
      ];
      for (const explain of plans) {
        const { rows } = await client.query<{ "QUERY PLAN": string }>(explain);
        const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(plan).toContain("deliveries");
        expect(plan).not.toMatch(/Seq Scan on deliveries/);
      }
    } finally {
      client.release();
      await pool.end();
    }
  });
});

describe("sending a run", () => {
  it("holds the rest of a run behind a delivery that fails in the middle, then sends it in order", async () => {
    const replica = await stack.addHooksReplica({ ...FAST_RETRIES, CANOPY_HOOK_WORKERS: "2" });
    try {
      const parent = await newGroup(stack, owner);
      const path = `/${unique("run")}`;
      await newHook(stack, parent, owner, { url: stack.receiver.url + path, subgroup_events: true });
      const children: string[] = [];
      // The first and the fifth fail once: the first makes the rest queue up behind it (a run),
      // the fifth fails inside that run.
      const failOnce = new Set<string>();
      const previous = stack.receiver.answer;
      stack.receiver.answer = (r) => {
        const child = String(r.json.path);
        if (r.url !== path || !(child === children[0] || child === children[4]) || failOnce.has(child))
          return previous(r);
        failOnce.add(child);
        return { status: 503, body: "busy" };
      };
      for (let i = 0; i < 8; i++) {
        const child = await newGroup(stack, owner, { parent_id: parent.id });
        children.push(child.path);
      }
      const got = await stack.receiver.waitFor(path, 10, 30_000);
      stack.receiver.answer = previous;
      await new Promise((r) => setTimeout(r, 500));
      const seen = stack.receiver.at(path).map((r) => String(r.json.path));
      expect(seen).toEqual([children[0], ...children.slice(0, 5), children[4], ...children.slice(5)]);
      // Each event under one Idempotency-Key, kept by its retry.
      const keys = got.map((r) => String(r.headers["idempotency-key"]));
      expect(new Set(keys).size).toBe(8);
      const { rows } = await stack.db.query("SELECT count(*)::int AS n FROM deliveries");
      expect(rows[0].n).toBe(0);
    } finally {
      await replica.stop();
      stack.hooksReplicas.splice(stack.hooksReplicas.indexOf(replica), 1);
    }
  });
});
