import { GROUPS_EVENTS } from "@canopy/protos";
import { addMember, groupEvents, recordedEvents, sharingRpc, utcDate } from "./sharing-support";
import { ANONYMOUS, failed, failure, startHarness, status, type Harness } from "./support";

let h: Harness;
let share: ReturnType<typeof sharingRpc>;
beforeAll(async () => {
  h = await startHarness();
  share = sharingRpc(h);
});
afterAll(() => h.stop());

const NOT_PERMITTED = failed(status.NOT_FOUND, { httpStatus: 404, publicMessage: "Not Found" });
const GROUP_NOT_FOUND = failed(status.NOT_FOUND, { resource: "Group" });

const linkRows = async (sharedGroupId: number) =>
  (
    await h.db.query(
      `SELECT shared_with_group_id, group_access, to_char(expires_at, 'YYYY-MM-DD') AS expires_at
         FROM group_links WHERE shared_group_id = $1 ORDER BY id`,
      [sharedGroupId],
    )
  ).rows;

describe("ShareGroup", () => {
  it("links the groups, answers the shared group's detail with the link, and records GroupShared", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner, { name: "Shared One" });
    const invited = await h.newGroup(owner, { name: "Invited One" });
    const detail = await share.shareGroup({
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 30,
    });
    expect(detail.group!.id).toBe(shared.id);
    expect(detail.accessLevel).toBe(50);
    expect(detail.sharedWithGroups).toEqual([
      {
        groupId: invited.id,
        groupName: "Invited One",
        groupFullPath: invited.fullPath,
        groupAccessLevel: 30,
        expiresAt: "",
      },
    ]);
    expect(await linkRows(shared.id)).toEqual([
      { shared_with_group_id: invited.id, group_access: 30, expires_at: null },
    ]);
    const recorded = await recordedEvents(h, GROUPS_EVENTS.groupShared.subject, groupEvents.GroupShared);
    expect(recorded.filter((e) => e.sharedGroupId === shared.id)).toEqual([
      { sharedGroupId: shared.id, sharedWithGroupId: invited.id, groupAccess: 30, expiresAt: "" },
    ]);
  });

  it("keeps expires_at, accepts Owner as the level, by full path too, and a group shared with itself", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    const invited = await h.newGroup(owner);
    const until = utcDate(30);
    const detail = await share.shareGroup({
      actor: owner.actor,
      group: { fullPath: shared.fullPath.toUpperCase() },
      sharedWithGroupId: invited.id,
      groupAccess: 50,
      expiresAt: until,
    });
    expect(detail.sharedWithGroups).toEqual([
      expect.objectContaining({ groupAccessLevel: 50, expiresAt: until }),
    ]);
    await share.shareGroup({
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: shared.id,
      groupAccess: 10,
    });
    expect(await linkRows(shared.id)).toEqual([
      { shared_with_group_id: invited.id, group_access: 50, expires_at: until },
      { shared_with_group_id: shared.id, group_access: 10, expires_at: null },
    ]);
  });

  it("answers 409 with GitLab's message when the pair is already linked, and changes nothing", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    const invited = await h.newGroup(owner);
    const req = {
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 20,
    };
    await share.shareGroup(req);
    expect(await failure(share.shareGroup({ ...req, groupAccess: 40 }))).toEqual(
      failed(status.ALREADY_EXISTS, {
        publicMessage: "Shared group The group has already been shared with this group",
      }),
    );
    expect(await linkRows(shared.id)).toEqual([
      { shared_with_group_id: invited.id, group_access: 20, expires_at: null },
    ]);
  });

  it("keeps two racing shares of the same pair to one link", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    const invited = await h.newGroup(owner);
    const req = {
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 20,
    };
    const results = await Promise.allSettled([share.shareGroup(req), share.shareGroup(req)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await linkRows(shared.id)).toHaveLength(1);
  });

  it("answers 404 Group Not Found for a shared or invited group the caller cannot see, or that does not exist", async () => {
    const owner = await h.newUser();
    const other = await h.newUser();
    const mine = await h.newGroup(owner);
    const theirs = await h.newGroup(other);
    for (const [group, invitedId] of [
      [theirs.id, mine.id],
      [mine.id, theirs.id],
      [mine.id, 999_999_999],
      [999_999_999, mine.id],
    ] as const)
      expect(
        await failure(
          share.shareGroup({
            actor: owner.actor,
            group: { id: group },
            sharedWithGroupId: invitedId,
            groupAccess: 30,
          }),
        ),
      ).toEqual(GROUP_NOT_FOUND);
    // A user's personal namespace is not a group.
    const personal = await h.db.query("SELECT id FROM namespaces WHERE owner_id = $1", [owner.user.id]);
    expect(
      await failure(
        share.shareGroup({
          actor: owner.actor,
          group: { id: mine.id },
          sharedWithGroupId: personal.rows[0].id,
          groupAccess: 30,
        }),
      ),
    ).toEqual(GROUP_NOT_FOUND);
    expect(await linkRows(mine.id)).toEqual([]);
    expect(await linkRows(theirs.id)).toEqual([]);
  });

  it("answers the bare 404 Not Found to a visible caller who is not an Owner of the shared group", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner, { visibility: "internal" });
    const invited = await h.newGroup(owner, { visibility: "public" });
    const maintainer = await h.newUser();
    await addMember(h, shared.id, maintainer.user.id, 40);
    const stranger = await h.newUser();
    for (const actor of [maintainer.actor, stranger.actor])
      expect(
        await failure(
          share.shareGroup({
            actor,
            group: { id: shared.id },
            sharedWithGroupId: invited.id,
            groupAccess: 10,
          }),
        ),
      ).toEqual(NOT_PERMITTED);
    expect(await linkRows(shared.id)).toEqual([]);
  });

  it("lets an Owner inherited from a parent share a subgroup, and an administrator share anything", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const other = await h.newUser();
    const foreign = await h.newGroup(other);
    const topOwner = await h.newUser();
    await addMember(h, top.id, topOwner.user.id, 50);
    const invited = await h.newGroup(topOwner);
    await share.shareGroup({
      actor: topOwner.actor,
      group: { id: sub.id },
      sharedWithGroupId: invited.id,
      groupAccess: 20,
    });
    await share.shareGroup({
      actor: h.admin,
      group: { id: sub.id },
      sharedWithGroupId: foreign.id,
      groupAccess: 40,
    });
    expect(await linkRows(sub.id)).toEqual([
      { shared_with_group_id: invited.id, group_access: 20, expires_at: null },
      { shared_with_group_id: foreign.id, group_access: 40, expires_at: null },
    ]);
  });

  it("follows the root's prevent_sharing_groups_outside_hierarchy: only groups of the root's own tree", async () => {
    const owner = await h.newUser();
    const root = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, root.id);
    const sibling = await h.newGroup(owner, {}, root.id);
    const outside = await h.newGroup(owner);
    await h.db.query("UPDATE namespaces SET prevent_sharing_groups_outside_hierarchy = true WHERE id = $1", [
      root.id,
    ]);
    const shareSub = (invitedId: number, actor = owner.actor) =>
      share.shareGroup({ actor, group: { id: sub.id }, sharedWithGroupId: invitedId, groupAccess: 30 });
    expect(await failure(shareSub(outside.id))).toEqual(NOT_PERMITTED);
    // Administrators are held to it too: it is the group's setting, not a permission.
    expect(await failure(shareSub(outside.id, h.admin))).toEqual(NOT_PERMITTED);
    await shareSub(sibling.id);
    await shareSub(root.id);
    expect((await linkRows(sub.id)).map((r) => r.shared_with_group_id)).toEqual([sibling.id, root.id]);
    // Only the root's setting counts: on a subgroup it changes nothing.
    const free = await h.newGroup(owner);
    const freeSub = await h.newGroup(owner, {}, free.id);
    await h.db.query("UPDATE namespaces SET prevent_sharing_groups_outside_hierarchy = true WHERE id = $1", [
      freeSub.id,
    ]);
    await share.shareGroup({
      actor: owner.actor,
      group: { id: freeSub.id },
      sharedWithGroupId: outside.id,
      groupAccess: 30,
    });
  });

  it("refuses anonymous callers, levels outside GitLab's list and dates that are not dates", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    const invited = await h.newGroup(owner);
    const base = {
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 30,
    };
    expect((await failure(share.shareGroup({ ...base, actor: ANONYMOUS }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    for (const groupAccess of [0, 5, 15, 25, 60])
      expect(await failure(share.shareGroup({ ...base, groupAccess }))).toEqual(
        failed(status.INVALID_ARGUMENT, { publicMessage: "group_access does not have a valid value" }),
      );
    for (const expiresAt of ["2024-02-30", "tomorrow", "2024-1-1"])
      expect(await failure(share.shareGroup({ ...base, expiresAt }))).toEqual(
        failed(status.INVALID_ARGUMENT, { publicMessage: "expires_at is invalid" }),
      );
    expect(await linkRows(shared.id)).toEqual([]);
  });
});

describe("UnshareGroup", () => {
  async function linked() {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner, { visibility: "internal" });
    const invited = await h.newGroup(owner);
    await share.shareGroup({
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 30,
    });
    return { owner, shared, invited };
  }

  it("removes the link for an Owner and records GroupUnshared", async () => {
    const { owner, shared, invited } = await linked();
    expect(
      await share.unshareGroup({
        actor: owner.actor,
        group: { id: shared.id },
        sharedWithGroupId: invited.id,
      }),
    ).toEqual({ removed: true });
    expect(await linkRows(shared.id)).toEqual([]);
    const recorded = await recordedEvents(h, GROUPS_EVENTS.groupUnshared.subject, groupEvents.GroupUnshared);
    expect(recorded.filter((e) => e.sharedGroupId === shared.id)).toEqual([
      { sharedGroupId: shared.id, sharedWithGroupId: invited.id },
    ]);
    // Gone now: a second removal finds no link.
    expect(
      await failure(
        share.unshareGroup({ actor: owner.actor, group: { id: shared.id }, sharedWithGroupId: invited.id }),
      ),
    ).toEqual(failed(status.NOT_FOUND, { resource: "Group Link" }));
  });

  it("answers a visible non-Owner as if it worked, and removes nothing", async () => {
    const { shared, invited } = await linked();
    const maintainer = await h.newUser();
    await addMember(h, shared.id, maintainer.user.id, 40);
    const stranger = await h.newUser();
    for (const actor of [maintainer.actor, stranger.actor])
      expect(
        await share.unshareGroup({ actor, group: { id: shared.id }, sharedWithGroupId: invited.id }),
      ).toEqual({
        removed: false,
      });
    expect(await linkRows(shared.id)).toHaveLength(1);
  });

  it("answers 404 Group for an invisible group before looking at links, 404 Group Link for a missing link", async () => {
    const { owner, shared, invited } = await linked();
    const outsider = await h.newUser({ external: true });
    expect(
      await failure(
        share.unshareGroup({
          actor: outsider.actor,
          group: { id: shared.id },
          sharedWithGroupId: invited.id,
        }),
      ),
    ).toEqual(GROUP_NOT_FOUND);
    expect(
      await failure(
        share.unshareGroup({ actor: owner.actor, group: { id: shared.id }, sharedWithGroupId: shared.id }),
      ),
    ).toEqual(failed(status.NOT_FOUND, { resource: "Group Link" }));
    expect(
      (
        await failure(
          share.unshareGroup({ actor: ANONYMOUS, group: { id: shared.id }, sharedWithGroupId: invited.id }),
        )
      ).code,
    ).toBe(status.UNAUTHENTICATED);
    expect(await linkRows(shared.id)).toHaveLength(1);
  });
});
