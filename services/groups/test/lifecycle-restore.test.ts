/**
 * POST /groups/:id/restore on premium and up (reference §4.6), and its race with the scheduler.
 */
import { GROUPS_EVENTS } from "@canopy/protos";
import { runQueuedRemovals } from "../src/commands/lifecycle-removal";
import { queueDueRemovals } from "../src/store/lifecycle";
import { addMember, backdateMark, exists, lifecycleRpc, recordedEvents, utcToday } from "./lifecycle-support";
import { ANONYMOUS, failed, failure, startHarness, status, type Harness } from "./support";

let h: Harness;
let lc: ReturnType<typeof lifecycleRpc>;
beforeAll(async () => {
  h = await startHarness();
  lc = lifecycleRpc(h.groupsService);
});
afterAll(() => h.stop());

describe("POST /groups/:id/restore", () => {
  it("clears the mark and answers the GroupDetail (201 at the gateway), recording GroupRestored", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    const detail = await lc.restoreGroup({ actor: owner.actor, group: { id: group.id } });
    expect(detail.group).toMatchObject({ id: group.id, fullPath: group.fullPath, markedForDeletionOn: "" });
    expect(detail.accessLevel).toBe(50);
    const { rows } = await h.db.query(
      "SELECT marked_for_deletion_on, deletion_scheduled_by_id FROM namespaces WHERE id = $1",
      [group.id],
    );
    expect(rows[0]).toEqual({ marked_for_deletion_on: null, deletion_scheduled_by_id: null });
    const restored = await recordedEvents(h.db, GROUPS_EVENTS.groupRestored, [group.id]);
    expect(restored).toHaveLength(1);
    // Marked again after a restore: a new mark, not "already marked".
    expect(await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } })).toEqual({
      markedForDeletion: true,
    });
    const again = await h.rpc.getGroup({ actor: owner.actor, group: { id: group.id } });
    expect(again.group!.markedForDeletionOn).toBe(utcToday());
  });

  it("answers 400 'Group has not been marked for deletion' for an unmarked group", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    expect(await failure(lc.restoreGroup({ actor: owner.actor, group: { id: group.id } }))).toEqual(
      failed(status.FAILED_PRECONDITION, {
        httpStatus: 400,
        publicMessage: "Group has not been marked for deletion",
      }),
    );
  });

  it("is for Owners and administrators: 403 below Owner, 404 unseen, unauthenticated anonymous", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const stranger = await h.newUser();
    const group = await h.newGroup(owner);
    await addMember(h, group.id, maintainer, 40);
    await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    expect(await failure(lc.restoreGroup({ actor: maintainer.actor, group: { id: group.id } }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    expect(await failure(lc.restoreGroup({ actor: stranger.actor, group: { id: group.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    expect((await failure(lc.restoreGroup({ actor: ANONYMOUS, group: { id: group.id } }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    const still = await h.rpc.getGroup({ actor: owner.actor, group: { id: group.id } });
    expect(still.group!.markedForDeletionOn).toBe(utcToday());
    const byAdmin = await lc.restoreGroup({ actor: h.admin, group: { id: group.id } });
    expect(byAdmin.group!.markedForDeletionOn).toBe("");
  });

  it("wins over a removal the scheduler queued but no worker took yet; no removal follows", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    await backdateMark(h.db, group.id, 9);
    const holder = await h.db.connect();
    try {
      // Hold the queued job as a worker of another replica would: every worker skips it meanwhile.
      await holder.query("BEGIN");
      await queueDueRemovals(holder, 7);
      await holder.query("SELECT 1 FROM group_removals WHERE namespace_id = $1 FOR UPDATE", [group.id]);
      await holder.query("COMMIT");
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM group_removals WHERE namespace_id = $1 FOR UPDATE", [group.id]);
      const restoring = lc.restoreGroup({ actor: owner.actor, group: { id: group.id } });
      await new Promise((r) => setTimeout(r, 300));
      await holder.query("COMMIT");
      expect((await restoring).group!.markedForDeletionOn).toBe("");
    } finally {
      holder.release();
    }
    await runQueuedRemovals(h.groupsService.deps);
    expect(await exists(h.db, group.id)).toBe(true);
    const { rowCount } = await h.db.query("SELECT 1 FROM group_removals WHERE namespace_id = $1", [group.id]);
    expect(rowCount).toBe(0);
  });

  it("answers 404 once the scheduler has removed the group", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    await backdateMark(h.db, group.id, 7);
    await queueDueRemovals(h.db, 7);
    await runQueuedRemovals(h.groupsService.deps);
    expect(await failure(lc.restoreGroup({ actor: owner.actor, group: { id: group.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
  });
});
