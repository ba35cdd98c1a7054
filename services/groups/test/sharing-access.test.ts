/**
 * Shared access as every group answer sees it: through store/access.ts (authorizedNamespacesSql),
 * read here through GetGroup's accessLevel and visibility, and the detail's shared_with_groups.
 */
import type { common, groups } from "@canopy/protos";
import { addMember, sharingRpc, utcDate } from "./sharing-support";
import {
  ANONYMOUS,
  failed,
  failure,
  startHarness,
  status,
  waitFor,
  type Harness,
  type TestUser,
} from "./support";
import { changeUserState, UserStateAction } from "../../auth/test/support";

let h: Harness;
let share: ReturnType<typeof sharingRpc>;
beforeAll(async () => {
  h = await startHarness();
  share = sharingRpc(h);
});
afterAll(() => h.stop());

/** The caller's effective access to the group, or "hidden" when it answers 404. */
async function accessOf(actor: common.Actor, groupId: number): Promise<number | "hidden"> {
  try {
    return (await h.rpc.getGroup({ actor, group: { id: groupId } })).accessLevel;
  } catch (err) {
    const f = await failure(Promise.reject(err));
    expect(f).toEqual(failed(status.NOT_FOUND, { resource: "Group" }));
    return "hidden";
  }
}

/** A private group with a private subgroup and grandchild, and a private group invited to it. */
async function sharedTree(linkLevel: number, expiresAt = "") {
  const owner = await h.newUser();
  const shared = await h.newGroup(owner);
  const child = await h.newGroup(owner, {}, shared.id);
  const grandchild = await h.newGroup(owner, {}, child.id);
  const invited = await h.newGroup(owner);
  await share.shareGroup({
    actor: owner.actor,
    group: { id: shared.id },
    sharedWithGroupId: invited.id,
    groupAccess: linkLevel,
    expiresAt,
  });
  return { owner, shared, child, grandchild, invited };
}

describe("access through a share", () => {
  it("gives direct members of the invited group LEAST(link, their level) on the group and its descendants", async () => {
    const { shared, child, grandchild, invited } = await sharedTree(30);
    const reporter = await h.newUser();
    const maintainer = await h.newUser();
    await addMember(h, invited.id, reporter.user.id, 20);
    await addMember(h, invited.id, maintainer.user.id, 40);
    for (const g of [shared, child, grandchild]) {
      expect(await accessOf(reporter.actor, g.id)).toBe(20);
      expect(await accessOf(maintainer.actor, g.id)).toBe(30);
    }
  });

  it("reaches only the shared group's subtree, never its parent or siblings", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const shared = await h.newGroup(owner, {}, top.id);
    const sibling = await h.newGroup(owner, {}, top.id);
    const invited = await h.newGroup(owner);
    await share.shareGroup({
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 40,
    });
    const dev = await h.newUser();
    await addMember(h, invited.id, dev.user.id, 30);
    expect(await accessOf(dev.actor, shared.id)).toBe(30);
    expect(await accessOf(dev.actor, sibling.id)).toBe("hidden");
    // The private parent is visible (access below it, as GitLab shows ancestors) but grants nothing.
    expect(await accessOf(dev.actor, top.id)).toBe(0);
  });

  it("takes the highest of direct, inherited and shared access", async () => {
    const { shared, child, invited } = await sharedTree(30);
    const user = await h.newUser();
    await addMember(h, invited.id, user.user.id, 50);
    await addMember(h, child.id, user.user.id, 10);
    expect(await accessOf(user.actor, child.id)).toBe(30);
    const direct = await h.newUser();
    await addMember(h, invited.id, direct.user.id, 50);
    await addMember(h, shared.id, direct.user.id, 40);
    expect(await accessOf(direct.actor, child.id)).toBe(40);
  });

  it("gives nothing through an expired link, or one that expires today; a future date still counts", async () => {
    for (const [expiresAt, expected] of [
      [utcDate(-1), "hidden"],
      [utcDate(0), "hidden"],
      [utcDate(1), 30],
    ] as const) {
      const { child, invited } = await sharedTree(30, expiresAt);
      const member = await h.newUser();
      await addMember(h, invited.id, member.user.id, 30);
      expect(await accessOf(member.actor, child.id)).toBe(expected);
    }
  });

  it("counts only active, direct, non-minimal memberships of the invited group", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    // The invited group has a parent and a subgroup: their members are not the invited group's.
    const parent = await h.newGroup(owner);
    const invited = await h.newGroup(owner, {}, parent.id);
    const invitedChild = await h.newGroup(owner, {}, invited.id);
    await share.shareGroup({
      actor: owner.actor,
      group: { id: shared.id },
      sharedWithGroupId: invited.id,
      groupAccess: 40,
    });
    const expired = await h.newUser();
    await addMember(h, invited.id, expired.user.id, 30, utcDate(-1));
    const minimal = await h.newUser();
    await addMember(h, invited.id, minimal.user.id, 5);
    const fromParent = await h.newUser();
    await addMember(h, parent.id, fromParent.user.id, 50);
    const fromChild = await h.newUser();
    await addMember(h, invitedChild.id, fromChild.user.id, 50);
    for (const u of [expired, minimal, fromParent, fromChild])
      expect(await accessOf(u.actor, shared.id)).toBe("hidden");
    const direct = await h.newUser();
    await addMember(h, invited.id, direct.user.id, 30);
    expect(await accessOf(direct.actor, shared.id)).toBe(30);
  });

  it("stops with the share, and gives a blocked member nothing", async () => {
    const { owner, shared, invited } = await sharedTree(20);
    const member = await h.newUser();
    const blocked = await h.newUser();
    await addMember(h, invited.id, member.user.id, 30);
    await addMember(h, invited.id, blocked.user.id, 30);
    expect(await accessOf(blocked.actor, shared.id)).toBe(20);
    await changeUserState(h.authService, h.admin, blocked.user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    await waitFor("the block to reach the groups service", async () => {
      const { rows } = await h.db.query("SELECT state FROM users WHERE id = $1", [blocked.user.id]);
      return rows[0]?.state === "blocked";
    });
    expect(await accessOf(blocked.actor, shared.id)).toBe("hidden");
    expect(await accessOf(member.actor, shared.id)).toBe(20);
    await share.unshareGroup({ actor: owner.actor, group: { id: shared.id }, sharedWithGroupId: invited.id });
    expect(await accessOf(member.actor, shared.id)).toBe("hidden");
  });
});

describe("shared_with_groups shows only invited groups the caller can see", () => {
  let shared: groups.Group;
  let privateInvited: groups.Group;
  let internalInvited: groups.Group;
  let publicInvited: groups.Group;
  let invitedOwner: TestUser;
  const listed = async (actor: common.Actor) =>
    (await h.rpc.getGroup({ actor, group: { id: shared.id } })).sharedWithGroups.map((l) => l.groupId);

  beforeAll(async () => {
    const owner = (invitedOwner = await h.newUser());
    shared = await h.newGroup(owner, { visibility: "public" });
    privateInvited = await h.newGroup(owner);
    internalInvited = await h.newGroup(owner, { visibility: "internal" });
    publicInvited = await h.newGroup(owner, { visibility: "public" });
    for (const g of [privateInvited, internalInvited, publicInvited])
      await share.shareGroup({
        actor: owner.actor,
        group: { id: shared.id },
        sharedWithGroupId: g.id,
        groupAccess: 30,
      });
  });

  it("anonymous and external callers see the public one", async () => {
    const external = await h.newUser({ external: true });
    expect(await listed(ANONYMOUS)).toEqual([publicInvited.id]);
    expect(await listed(external.actor)).toEqual([publicInvited.id]);
  });

  it("a signed-in stranger sees the internal and public ones", async () => {
    const stranger = await h.newUser();
    expect(await listed(stranger.actor)).toEqual([internalInvited.id, publicInvited.id]);
  });

  it("a member of the private invited group, or of a group below it, sees it too", async () => {
    const member = await h.newUser();
    await addMember(h, privateInvited.id, member.user.id, 10);
    expect(await listed(member.actor)).toEqual([privateInvited.id, internalInvited.id, publicInvited.id]);
    const below = await h.newGroup(invitedOwner, {}, privateInvited.id);
    const belowMember = await h.newUser();
    await addMember(h, below.id, belowMember.user.id, 10);
    expect(await listed(belowMember.actor)).toEqual([
      privateInvited.id,
      internalInvited.id,
      publicInvited.id,
    ]);
  });

  it("an administrator sees every link", async () => {
    expect(await listed(h.admin)).toEqual([privateInvited.id, internalInvited.id, publicInvited.id]);
  });
});
