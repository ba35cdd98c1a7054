/**
 * POST /groups/:id/transfer (reference §4.12): the subtree's traversal_ids, full_path and full_name
 * rewritten, visibility lowered, ownership ensured at the top, and every refusal in GitLab's order.
 */
import { events, GROUPS_EVENTS } from "@canopy/protos";
import { addMember, lifecycleRpc, namespaceRow, recordedEvents } from "./lifecycle-support";
import { ANONYMOUS, failed, failure, startHarness, status, unique, type Harness } from "./support";

let h: Harness;
let lc: ReturnType<typeof lifecycleRpc>;
beforeAll(async () => {
  h = await startHarness();
  lc = lifecycleRpc(h.groupsService);
});
afterAll(() => h.stop());

const transferFailed = (reason: string) =>
  failed(status.FAILED_PRECONDITION, { httpStatus: 400, publicMessage: `Transfer failed: ${reason}` });

describe("moving a group", () => {
  it("rewrites the subtree under the new parent and records GroupTransferred with the old place", async () => {
    const owner = await h.newUser();
    const from = await h.newGroup(owner, { name: "From" });
    const to = await h.newGroup(owner, { name: "To" });
    const moving = await h.newGroup(owner, { name: "Mover 🚀", path: "mover" }, from.id);
    const child = await h.newGroup(owner, { name: "Kid", path: "kid" }, moving.id);
    const grandchild = await h.newGroup(owner, { name: "Tot", path: "tot" }, child.id);
    const detail = await lc.transferGroup({
      actor: owner.actor,
      group: { id: moving.id },
      newParentId: to.id,
    });
    expect(detail.group).toMatchObject({
      id: moving.id,
      parentId: to.id,
      fullPath: `${to.fullPath}/mover`,
      fullName: "To / Mover 🚀",
    });
    expect(detail.accessLevel).toBe(50);
    expect(await namespaceRow(h.db, child.id)).toMatchObject({
      traversal_ids: [to.id, moving.id, child.id],
      full_path: `${to.fullPath}/mover/kid`,
      full_name: "To / Mover 🚀 / Kid",
      parent_id: moving.id,
    });
    expect(await namespaceRow(h.db, grandchild.id)).toMatchObject({
      traversal_ids: [to.id, moving.id, child.id, grandchild.id],
      full_path: `${to.fullPath}/mover/kid/tot`,
      full_name: "To / Mover 🚀 / Kid / Tot",
    });
    expect(await namespaceRow(h.db, from.id)).toMatchObject({
      traversal_ids: [from.id],
      full_path: from.fullPath,
    });
    const [event] = await recordedEvents(h.db, GROUPS_EVENTS.groupTransferred, [moving.id]);
    expect(event).toMatchObject({
      oldParentId: from.id,
      oldFullPath: `${from.fullPath}/mover`,
      oldTraversalIds: [from.id, moving.id],
      group: { traversalIds: [to.id, moving.id], fullPath: `${to.fullPath}/mover`, parentId: to.id },
    });
    // Found by its new path, not by the old one.
    expect(
      (await h.rpc.getGroup({ actor: owner.actor, group: { fullPath: `${to.fullPath}/mover/kid` } })).group!
        .id,
    ).toBe(child.id);
    expect(
      await failure(h.rpc.getGroup({ actor: owner.actor, group: { fullPath: `${from.fullPath}/mover` } })),
    ).toEqual(failed(status.NOT_FOUND, { resource: "Group" }));
  });

  it("moves a subgroup to the top, adding the caller as Owner when it has no direct Owner", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, { path: unique("up_") }, top.id);
    await h.db.query("DELETE FROM members WHERE namespace_id = $1", [sub.id]);
    const detail = await lc.transferGroup({ actor: owner.actor, group: { id: sub.id } });
    expect(detail.group).toMatchObject({ parentId: 0, fullPath: sub.path, fullName: sub.name });
    expect(await namespaceRow(h.db, sub.id)).toMatchObject({ traversal_ids: [sub.id], parent_id: null });
    const { rows } = await h.db.query("SELECT user_id, access_level FROM members WHERE namespace_id = $1", [
      sub.id,
    ]);
    expect(rows.map((r) => [Number(r.user_id), r.access_level])).toEqual([[owner.user.id, 50]]);
    const { rows: outbox } = await h.db.query<{ envelope: Buffer }>(
      "SELECT envelope FROM outbox WHERE subject = $1",
      [GROUPS_EVENTS.memberAdded.subject],
    );
    const added = outbox
      .map((r) => GROUPS_EVENTS.memberAdded.codec.decode(events.Event.decode(r.envelope).payload).member!)
      .filter((m) => m.groupId === sub.id);
    // The creator's membership when the subgroup was made, then the one the transfer added.
    expect(added).toHaveLength(2);
    expect(added[1]).toMatchObject({ userId: owner.user.id, accessLevel: 50 });
  });

  it("lowers the moved subtree's visibility to the new parent's, as GitLab does", async () => {
    const owner = await h.newUser();
    const to = await h.newGroup(owner, { visibility: "internal" });
    const moving = await h.newGroup(owner, { visibility: "public" });
    const child = await h.newGroup(owner, { visibility: "public" }, moving.id);
    const privateChild = await h.newGroup(owner, { visibility: "private" }, moving.id);
    const detail = await lc.transferGroup({
      actor: owner.actor,
      group: { id: moving.id },
      newParentId: to.id,
    });
    expect(detail.group!.visibility).toBe("internal");
    expect((await namespaceRow(h.db, child.id))!.visibility_level).toBe(10);
    expect((await namespaceRow(h.db, privateChild.id))!.visibility_level).toBe(0);
  });
});

describe("refusals, in GitLab's order", () => {
  it("answers 404 for an unseen group or new parent, 403 without admin_group, and needs a user", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "public" });
    const sub = await h.newGroup(owner, { visibility: "public" }, group.id);
    const hidden = await h.newGroup(await h.newUser());
    await addMember(h, group.id, maintainer, 40);
    expect(await failure(lc.transferGroup({ actor: maintainer.actor, group: { id: sub.id } }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    // admin_group comes before the new parent's lookup.
    expect(
      await failure(
        lc.transferGroup({ actor: maintainer.actor, group: { id: sub.id }, newParentId: 999_999_999 }),
      ),
    ).toEqual(failed(status.PERMISSION_DENIED));
    expect(
      await failure(lc.transferGroup({ actor: owner.actor, group: { id: sub.id }, newParentId: hidden.id })),
    ).toEqual(failed(status.NOT_FOUND, { resource: "Group" }));
    expect(await failure(lc.transferGroup({ actor: owner.actor, group: { id: hidden.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    expect((await failure(lc.transferGroup({ actor: ANONYMOUS, group: { id: sub.id } }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    expect((await namespaceRow(h.db, sub.id))!.traversal_ids).toEqual([group.id, sub.id]);
  });

  it("already a root group; already under that parent", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    expect(await failure(lc.transferGroup({ actor: owner.actor, group: { id: top.id } }))).toEqual(
      transferFailed("Group is already a root group."),
    );
    expect(
      await failure(lc.transferGroup({ actor: owner.actor, group: { id: sub.id }, newParentId: top.id })),
    ).toEqual(transferFailed("Group is already associated to the parent group."));
  });

  it("not enough permissions: create_subgroup on the new parent, create_group for the top", async () => {
    const owner = await h.newUser();
    const other = await h.newUser();
    const mine = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, mine.id);
    const theirs = await h.newGroup(other, { visibility: "internal" });
    const ownerOnly = await h.newGroup(other, { subgroupCreationLevel: "owner" });
    await addMember(h, ownerOnly.id, owner, 40);
    await addMember(h, theirs.id, owner, 30);
    const denied = transferFailed("You don't have enough permissions.");
    for (const target of [theirs, ownerOnly])
      expect(
        await failure(
          lc.transferGroup({ actor: owner.actor, group: { id: sub.id }, newParentId: target.id }),
        ),
      ).toEqual(denied);
    const maintainerTarget = await h.newGroup(other);
    await addMember(h, maintainerTarget.id, owner, 40);
    const moved = await lc.transferGroup({
      actor: owner.actor,
      group: { id: sub.id },
      newParentId: maintainerTarget.id,
    });
    expect(moved.group!.parentId).toBe(maintainerTarget.id);
    const noGroups = await h.newUser({ canCreateGroup: false });
    const top = await h.newGroup(h.admin);
    const deep = await h.newGroup(h.admin, {}, top.id);
    await addMember(h, deep.id, noGroups, 50);
    expect(await failure(lc.transferGroup({ actor: noGroups.actor, group: { id: deep.id } }))).toEqual(
      denied,
    );
  });

  it("a path clash in the new parent, case-insensitively, and at the top against usernames", async () => {
    const owner = await h.newUser();
    const to = await h.newGroup(owner);
    await h.newGroup(owner, { path: "Taken" }, to.id);
    const from = await h.newGroup(owner);
    const clash = await h.newGroup(owner, { path: "taken" }, from.id);
    expect(
      await failure(lc.transferGroup({ actor: owner.actor, group: { id: clash.id }, newParentId: to.id })),
    ).toEqual(transferFailed("The parent group already has a subgroup with the same path."));
    const user = await h.newUser();
    const named = await h.newGroup(owner, { path: user.user.username.toUpperCase() }, from.id);
    expect(await failure(lc.transferGroup({ actor: owner.actor, group: { id: named.id } }))).toEqual(
      transferFailed("The parent group already has a subgroup with the same path."),
    );
  });

  it("no move into itself or below itself", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const below = await h.newGroup(owner, {}, sub.id);
    const cycle = transferFailed("Cannot transfer group to one of its subgroup.");
    expect(
      await failure(lc.transferGroup({ actor: owner.actor, group: { id: top.id }, newParentId: below.id })),
    ).toEqual(cycle);
    expect(
      await failure(lc.transferGroup({ actor: owner.actor, group: { id: sub.id }, newParentId: sub.id })),
    ).toEqual(cycle);
  });

  it("no subtree deeper than 20 levels after the move", async () => {
    const owner = await h.newUser();
    let parent = await h.newGroup(owner);
    for (let depth = 2; depth <= 18; depth++) parent = await h.newGroup(owner, {}, parent.id);
    const moving = await h.newGroup(owner);
    const child = await h.newGroup(owner, {}, moving.id);
    await h.newGroup(owner, {}, child.id);
    // 18 levels + a subtree 3 deep = 21.
    expect(
      await failure(
        lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: parent.id }),
      ),
    ).toEqual(transferFailed("Validation failed: Parent has too deep level of nesting"));
    const moved = await lc.transferGroup({
      actor: owner.actor,
      group: { id: child.id },
      newParentId: parent.id,
    });
    expect(moved.group!.fullPath.split("/")).toHaveLength(19);
  });
});
