/**
 * Two replicas of the groups service on one schema: schedulers that never remove a group twice,
 * crossing transfers that never make a cycle, a subgroup created while its parent moves.
 */
import { errorDetailOf } from "@canopy/kit";
import type { ServiceError } from "@grpc/grpc-js";
import type { TestService } from "@canopy/kit/testing";
import type { GroupsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { runAdjournedDeletions, runQueuedRemovals } from "../src/commands/lifecycle-removal";
import { queueDueRemovals } from "../src/store/lifecycle";
import { backdateMark, exists, lifecycleRpc, namespaceRow, removedEvents } from "./lifecycle-support";
import { startHarness, waitFor, type Harness } from "./support";
import { startTestService } from "@canopy/kit/testing";
import { groupsServiceDefinition } from "../src/service";

let h: Harness;
let second: TestService<GroupsConfig, Deps>;
let one: ReturnType<typeof lifecycleRpc>;
let two: ReturnType<typeof lifecycleRpc>;
beforeAll(async () => {
  h = await startHarness();
  second = await startTestService(groupsServiceDefinition);
  one = lifecycleRpc(h.groupsService);
  two = lifecycleRpc(second);
});
afterAll(async () => {
  await second.stop();
  await h.stop();
});

/** Every row of the subtrees of `roots` agrees with its parent: traversal, full path, no cycle. */
async function expectConsistentTrees(roots: number[]) {
  const { rows } = await h.db.query<{
    id: number;
    parent_id: number | null;
    traversal_ids: number[];
    path: string;
    full_path: string;
  }>(
    "SELECT id, parent_id, traversal_ids, path, full_path FROM namespaces WHERE traversal_ids[1] = ANY($1::bigint[])",
    [roots],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  for (const row of rows) {
    const parent = row.parent_id === null ? undefined : byId.get(Number(row.parent_id));
    expect(new Set(row.traversal_ids).size).toBe(row.traversal_ids.length);
    expect(row.traversal_ids).toEqual([...(parent?.traversal_ids ?? []), Number(row.id)]);
    expect(row.full_path).toBe(parent ? `${parent.full_path}/${row.path}` : row.path);
  }
  return rows.length;
}

describe("with two replicas", () => {
  it("two schedulers remove each due group once: one GroupRemoved per group", async () => {
    const owner = await h.newUser();
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const top = await h.newGroup(owner);
      const sub = await h.newGroup(owner, {}, top.id);
      const leaf = await h.newGroup(owner, {}, sub.id);
      ids.push(top.id, sub.id, leaf.id);
      await one.deleteGroup({ actor: owner.actor, group: { id: top.id } });
      await backdateMark(h.db, top.id, 8);
      // Every other subtree has a due marked subgroup as well.
      if (i % 2) {
        await two.deleteGroup({ actor: owner.actor, group: { id: sub.id } });
        await backdateMark(h.db, sub.id, 10);
      }
    }
    await Promise.all([
      runAdjournedDeletions(h.groupsService.deps),
      runAdjournedDeletions(second.deps),
      runAdjournedDeletions(h.groupsService.deps),
      runAdjournedDeletions(second.deps),
    ]);
    // A job whose tree another worker held is put off a second, not lost: let the workers finish it.
    await waitFor(
      "every due group removed",
      async () => {
        await runQueuedRemovals(second.deps);
        return (await Promise.all(ids.map((id) => exists(h.db, id)))).every((e) => !e);
      },
      15_000,
    );
    const removed = (await removedEvents(h.db, ids)).map((e) => e.group!.id);
    expect(removed.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });

  it("a scheduler queueing a due group that another replica is removing skips it instead of failing", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await one.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    await backdateMark(h.db, group.id, 8);
    // The other replica's removal, caught between deleting the row and committing.
    const remover = await h.db.connect();
    try {
      await remover.query("BEGIN");
      await remover.query("DELETE FROM namespaces WHERE id = $1", [group.id]);
      const queued = queueDueRemovals(second.deps.pool, 7);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await remover.query("COMMIT");
      await expect(queued).resolves.toBeGreaterThanOrEqual(0);
    } finally {
      remover.release();
    }
    expect(await exists(h.db, group.id)).toBe(false);
  });

  it("crossing transfers (A under B's subgroup, B under A's) end without a cycle", async () => {
    for (let round = 0; round < 4; round++) {
      const owner = await h.newUser();
      const a = await h.newGroup(owner);
      const a1 = await h.newGroup(owner, {}, a.id);
      const b = await h.newGroup(owner);
      const b1 = await h.newGroup(owner, {}, b.id);
      const outcome = (call: Promise<unknown>) =>
        call.then(
          () => "moved",
          (err: ServiceError) => errorDetailOf(err).publicMessage,
        );
      const results = await Promise.all([
        outcome(one.transferGroup({ actor: owner.actor, group: { id: a.id }, newParentId: b1.id })),
        outcome(two.transferGroup({ actor: owner.actor, group: { id: b.id }, newParentId: a1.id })),
      ]);
      expect(results.sort()).toEqual([
        "Transfer failed: Cannot transfer group to one of its subgroup.",
        "moved",
      ]);
      expect(await expectConsistentTrees([a.id, b.id])).toBe(4);
      const rowA = (await namespaceRow(h.db, a.id))!;
      const rowB = (await namespaceRow(h.db, b.id))!;
      // Exactly one of them is still a root, and the other lies below it.
      expect([rowA.parent_id, rowB.parent_id].filter((p) => p === null)).toHaveLength(1);
    }
  });

  it("a subgroup created while its parent moves ends with the parent's new traversal", async () => {
    for (let round = 0; round < 4; round++) {
      const owner = await h.newUser();
      const from = await h.newGroup(owner);
      const to = await h.newGroup(owner);
      const moving = await h.newGroup(owner, {}, from.id);
      const [, created] = await Promise.all([
        two.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: to.id }),
        h.rpc.createGroup({
          actor: owner.actor,
          attributes: { name: "late", path: `late${round}` },
          parentId: moving.id,
        }),
      ]);
      const row = (await namespaceRow(h.db, created.group!.id))!;
      expect(row.traversal_ids).toEqual([to.id, moving.id, created.group!.id]);
      expect(row.full_path).toBe(`${to.fullPath}/${moving.path}/late${round}`);
      expect(await expectConsistentTrees([to.id])).toBe(3);
    }
  });
});
