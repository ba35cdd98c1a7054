/**
 * DELETE on premium and up (the default plan, ultimate): marking, its errors, permanently_remove,
 * and the adjourned-deletion scheduler removing what is due (reference §4.5).
 */
import { GROUPS_EVENTS } from "@canopy/protos";
import { runAdjournedDeletions } from "../src/commands/lifecycle-removal";
import {
  addMember,
  backdateMark,
  exists,
  lifecycleRpc,
  recordedEvents,
  removedEvents,
  utcToday,
  waitRemoved,
} from "./lifecycle-support";
import { ANONYMOUS, failed, failure, startHarness, status, unique, type Harness } from "./support";

let h: Harness;
let lc: ReturnType<typeof lifecycleRpc>;
beforeAll(async () => {
  h = await startHarness();
  lc = lifecycleRpc(h.groupsService);
});
afterAll(() => h.stop());

const apiFailure = (httpStatus: number, publicMessage: string, code = status.FAILED_PRECONDITION) =>
  failed(code, { httpStatus, publicMessage });

describe("DELETE /groups/:id on premium and up", () => {
  it("marks the group (today, UTC, by the caller), keeps it visible, and records GroupMarkedForDeletion", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, group.id);
    const answer = await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    expect(answer).toEqual({ markedForDeletion: true });
    const detail = await h.rpc.getGroup({ actor: owner.actor, group: { id: group.id } });
    expect(detail.group!.markedForDeletionOn).toBe(utcToday());
    const { rows } = await h.db.query("SELECT deletion_scheduled_by_id FROM namespaces WHERE id = $1", [
      group.id,
    ]);
    expect(Number(rows[0].deletion_scheduled_by_id)).toBe(owner.user.id);
    // Descendants are not marked themselves: they go with the group.
    const child = await h.rpc.getGroup({ actor: owner.actor, group: { id: sub.id } });
    expect(child.group!.markedForDeletionOn).toBe("");
    const marked = await recordedEvents(h.db, GROUPS_EVENTS.groupMarkedForDeletion, [group.id]);
    expect(marked.map((e) => e.group!.markedForDeletionOn)).toEqual([utcToday()]);
  });

  it("answers 400 'Group has been already marked for deletion' the second time (Terraform relies on it)", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await lc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    expect(
      await failure(lc.deleteGroup({ actor: owner.actor, group: { fullPath: group.fullPath } })),
    ).toEqual(apiFailure(400, "Group has been already marked for deletion"));
    const marked = await recordedEvents(h.db, GROUPS_EVENTS.groupMarkedForDeletion, [group.id]);
    expect(marked).toHaveLength(1);
  });

  it("is for Owners and administrators: 404 unseen, 403 below Owner, unauthenticated anonymous", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const stranger = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "public" });
    const hidden = await h.newGroup(owner);
    await addMember(h, group.id, maintainer, 40);
    expect(await failure(lc.deleteGroup({ actor: maintainer.actor, group: { id: group.id } }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    expect(await failure(lc.deleteGroup({ actor: stranger.actor, group: { id: group.id } }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    expect(await failure(lc.deleteGroup({ actor: stranger.actor, group: { id: hidden.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    expect(await failure(lc.deleteGroup({ actor: owner.actor, group: { id: 999_999_999 } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    expect((await failure(lc.deleteGroup({ actor: ANONYMOUS, group: { id: group.id } }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    const still = await h.rpc.getGroup({ actor: owner.actor, group: { id: group.id } });
    expect(still.group!.markedForDeletionOn).toBe("");
    // An administrator who is no member may.
    await lc.deleteGroup({ actor: h.admin, group: { id: hidden.id } });
    const byAdmin = await h.rpc.getGroup({ actor: owner.actor, group: { id: hidden.id } });
    expect(byAdmin.group!.markedForDeletionOn).toBe(utcToday());
  });

  it("answers 412 when If-Unmodified-Since is older than the group's last update", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const before = new Date(group.updatedAt!.getTime() - 60_000);
    expect(
      await failure(lc.deleteGroup({ actor: owner.actor, group: { id: group.id }, unmodifiedSince: before })),
    ).toEqual(apiFailure(412, "412 Precondition Failed"));
    const after = new Date(group.updatedAt!.getTime() + 60_000);
    expect(
      await lc.deleteGroup({ actor: owner.actor, group: { id: group.id }, unmodifiedSince: after }),
    ).toEqual({ markedForDeletion: true });
  });
});

describe("permanently_remove", () => {
  it("answers GitLab's three 400s: top-level group, not marked yet, wrong full_path", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const remove = (id: number, fullPath?: string) =>
      lc.deleteGroup({ actor: owner.actor, group: { id }, permanentlyRemove: true, fullPath });
    expect(await failure(remove(top.id, top.fullPath))).toEqual(
      apiFailure(400, "`permanently_remove` option is only available for subgroups."),
    );
    expect(await failure(remove(sub.id, sub.fullPath))).toEqual(
      apiFailure(400, "Group must be marked for deletion first."),
    );
    await lc.deleteGroup({ actor: owner.actor, group: { id: sub.id } });
    const wrong = "`full_path` is incorrect. You must enter the complete path for the subgroup.";
    expect(await failure(remove(sub.id))).toEqual(apiFailure(400, wrong));
    expect(await failure(remove(sub.id, sub.fullPath.toUpperCase()))).toEqual(apiFailure(400, wrong));
    expect(await failure(remove(sub.id, sub.path))).toEqual(apiFailure(400, wrong));
    expect(await exists(h.db, sub.id)).toBe(true);
  });

  it("removes a marked subgroup and its subtree now: 404 at once, then gone, GroupRemoved deepest first", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const leaf = await h.newGroup(owner, {}, sub.id);
    await lc.deleteGroup({ actor: owner.actor, group: { id: sub.id } });
    const answer = await lc.deleteGroup({
      actor: owner.actor,
      group: { id: sub.id },
      permanentlyRemove: true,
      fullPath: sub.fullPath,
    });
    expect(answer).toEqual({ markedForDeletion: false });
    for (const id of [sub.id, leaf.id])
      expect(await failure(h.rpc.getGroup({ actor: owner.actor, group: { id } }))).toEqual(
        failed(status.NOT_FOUND, { resource: "Group" }),
      );
    await waitRemoved(h.db, sub.id);
    expect(await exists(h.db, leaf.id)).toBe(false);
    expect(await exists(h.db, top.id)).toBe(true);
    const removed = await removedEvents(h.db, [top.id, sub.id, leaf.id]);
    expect(removed.map((e) => e.group!.id)).toEqual([leaf.id, sub.id]);
  });
});

describe("the adjourned-deletion scheduler", () => {
  it("removes groups marked deletion_adjourned_period days ago with their subtrees, not younger marks", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const due = await h.newGroup(owner, { path: unique("due_") });
    const child = await h.newGroup(owner, {}, due.id);
    const grandchild = await h.newGroup(owner, {}, child.id);
    const young = await h.newGroup(owner);
    await addMember(h, child.id, member, 30);
    await h.db.query("INSERT INTO custom_attributes (namespace_id, key, value) VALUES ($1, 'k', 'v')", [
      grandchild.id,
    ]);
    for (const g of [due, young]) await lc.deleteGroup({ actor: owner.actor, group: { id: g.id } });
    await backdateMark(h.db, due.id, 7);
    await backdateMark(h.db, young.id, 6);
    await runAdjournedDeletions(h.groupsService.deps);
    for (const id of [due.id, child.id, grandchild.id]) expect(await exists(h.db, id)).toBe(false);
    expect(await exists(h.db, young.id)).toBe(true);
    const removed = await removedEvents(h.db, [due.id, child.id, grandchild.id, young.id]);
    expect(removed.map((e) => e.group!.id)).toEqual([grandchild.id, child.id, due.id]);
    expect(removed[2]!.group!.fullPath).toBe(due.fullPath);
    const left = await h.db.query(
      `SELECT (SELECT count(*) FROM members WHERE namespace_id = ANY($1::bigint[]))::int AS members,
              (SELECT count(*) FROM custom_attributes WHERE namespace_id = ANY($1::bigint[]))::int AS attributes,
              (SELECT count(*) FROM group_removals WHERE namespace_id = ANY($1::bigint[]))::int AS jobs`,
      [[due.id, child.id, grandchild.id]],
    );
    expect(left.rows[0]).toEqual({ members: 0, attributes: 0, jobs: 0 });
  });

  it("removes nothing twice when a marked group's marked descendant is due too", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    await lc.deleteGroup({ actor: owner.actor, group: { id: sub.id } });
    await lc.deleteGroup({ actor: owner.actor, group: { id: top.id } });
    await backdateMark(h.db, sub.id, 30);
    await backdateMark(h.db, top.id, 8);
    await runAdjournedDeletions(h.groupsService.deps);
    const removed = await removedEvents(h.db, [top.id, sub.id]);
    expect(removed.map((e) => e.group!.id).sort()).toEqual([top.id, sub.id].sort());
  });
});
