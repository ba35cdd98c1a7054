/**
 * DELETE on the free plan (and on premium with no adjourned period): the group and its subtree
 * answer 404 at once and are removed in the background (reference §4.5); restore is not there.
 */
import {
  removedEvents,
  addMember,
  exists,
  lifecycleRpc,
  startReplicaWithSettings,
  waitRemoved,
} from "./lifecycle-support";
import { failed, failure, startHarness, status, type Harness } from "./support";

let h: Harness;
let lc: ReturnType<typeof lifecycleRpc>;
beforeAll(async () => {
  h = await startHarness({ CANOPY_PLAN: "free" });
  lc = lifecycleRpc(h.groupsService);
});
afterAll(() => h.stop());

const GROUP_NOT_FOUND = failed(status.NOT_FOUND, { resource: "Group" });

describe("DELETE /groups/:id on the free plan", () => {
  it("hides the subtree at once, then removes it deepest first with one GroupRemoved each", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const top = await h.newGroup(owner, { visibility: "public" });
    const sub = await h.newGroup(owner, { visibility: "public" }, top.id);
    const leaf = await h.newGroup(owner, {}, sub.id);
    const sibling = await h.newGroup(owner);
    await addMember(h, leaf.id, member, 30);
    await h.db.query(
      "INSERT INTO group_links (shared_group_id, shared_with_group_id, group_access) VALUES ($1, $2, 30)",
      [sibling.id, sub.id],
    );
    expect(await lc.deleteGroup({ actor: owner.actor, group: { id: top.id } })).toEqual({
      markedForDeletion: false,
    });
    for (const g of [top, sub, leaf]) {
      expect(await failure(h.rpc.getGroup({ actor: owner.actor, group: { id: g.id } }))).toEqual(
        GROUP_NOT_FOUND,
      );
      expect(await failure(h.rpc.getGroup({ actor: h.admin, group: { fullPath: g.fullPath } }))).toEqual(
        GROUP_NOT_FOUND,
      );
    }
    // A second DELETE finds nothing to delete.
    expect(await failure(lc.deleteGroup({ actor: owner.actor, group: { id: top.id } }))).toEqual(
      GROUP_NOT_FOUND,
    );
    await waitRemoved(h.db, top.id);
    for (const g of [sub, leaf]) expect(await exists(h.db, g.id)).toBe(false);
    expect(await exists(h.db, sibling.id)).toBe(true);
    const removed = await removedEvents(h.db, [top.id, sub.id, leaf.id, sibling.id]);
    expect(removed.map((e) => e.group!.id)).toEqual([leaf.id, sub.id, top.id]);
    const left = await h.db.query(
      `SELECT (SELECT count(*) FROM members WHERE namespace_id = ANY($1::bigint[]))::int AS members,
              (SELECT count(*) FROM group_links WHERE shared_with_group_id = ANY($1::bigint[]))::int AS links`,
      [[top.id, sub.id, leaf.id]],
    );
    expect(left.rows[0]).toEqual({ members: 0, links: 0 });
  });

  it("refuses a subgroup under a group being removed", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    await lc.deleteGroup({ actor: owner.actor, group: { id: top.id } });
    expect(
      await failure(
        h.rpc.createGroup({ actor: owner.actor, attributes: { name: "x", path: "xx" }, parentId: top.id }),
      ),
    ).toEqual(GROUP_NOT_FOUND);
  });

  it("ignores permanently_remove and never marks", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    expect(
      await lc.deleteGroup({
        actor: owner.actor,
        group: { id: top.id },
        permanentlyRemove: true,
        fullPath: "nope",
      }),
    ).toEqual({ markedForDeletion: false });
    await waitRemoved(h.db, top.id);
  });

  it("has no restore: 404 '404 Not Found' (after the group lookup and the Owner check)", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const group = await h.newGroup(owner);
    await addMember(h, group.id, maintainer, 40);
    expect(await failure(lc.restoreGroup({ actor: owner.actor, group: { id: group.id } }))).toEqual(
      failed(status.NOT_FOUND, { httpStatus: 404, publicMessage: "404 Not Found" }),
    );
    expect(await failure(lc.restoreGroup({ actor: maintainer.actor, group: { id: group.id } }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
  });
});

describe("DELETE on premium with an adjourned period of 0", () => {
  it("removes at once, as GitLab does when the period is 0", async () => {
    const replica = await startReplicaWithSettings(
      h,
      { deletionAdjournedPeriod: 0 },
      { CANOPY_PLAN: "ultimate" },
    );
    try {
      const owner = await h.newUser();
      const group = await h.newGroup(owner);
      const zero = lifecycleRpc(replica);
      expect(await zero.deleteGroup({ actor: owner.actor, group: { id: group.id } })).toEqual({
        markedForDeletion: false,
      });
      await waitRemoved(h.db, group.id);
      expect((await removedEvents(h.db, [group.id])).map((e) => e.group!.markedForDeletionOn)).toEqual([""]);
    } finally {
      await replica.stop();
    }
  });
});
