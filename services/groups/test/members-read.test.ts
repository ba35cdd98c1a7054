import { startHarness, failure, status, ANONYMOUS, type Harness, type TestUser } from "./support";
import { addAs, ALL, DIRECT, membersRpc, share, type MembersRpc } from "./members-support";
import { changeUserState, UserStateAction } from "../../auth/test/support";

let h: Harness;
let rpc: MembersRpc;
beforeAll(async () => {
  h = await startHarness();
  rpc = membersRpc(h);
});
afterAll(() => h.stop());

const userIdsOf = (r: { members: { user?: { id: number } }[] }) => r.members.map((m) => m.user!.id);

describe("ListMembers, direct", () => {
  let owner: TestUser;
  let dev: TestUser;
  let guest: TestUser;
  let groupId: number;
  beforeAll(async () => {
    owner = await h.newUser({ name: "Olive Owner" });
    dev = await h.newUser({ name: "Dana Developer" });
    guest = await h.newUser({ name: "Gus Guest" });
    groupId = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, groupId, dev, 30, "2999-01-31");
    await addAs(rpc, owner, groupId, guest, 10);
  });

  it("lists the group's own members in membership order, with the Member fields", async () => {
    const res = await rpc.listMembers({ actor: dev.actor, group: { id: groupId }, scope: DIRECT });
    expect(userIdsOf(res)).toEqual([owner.user.id, dev.user.id, guest.user.id]);
    expect(res.page).toMatchObject({ page: 1, perPage: 20, total: 3, totalCapped: false });
    expect(res.members[1]).toMatchObject({
      user: { id: dev.user.id, username: dev.user.username, name: "Dana Developer", state: "active" },
      accessLevel: 30,
      expiresAt: "2999-01-31",
      createdBy: { id: owner.user.id, username: owner.user.username },
      sourceGroupId: groupId,
    });
    expect(res.members[1]!.createdAt).toBeInstanceOf(Date);
  });

  it("filters by query (name or username, case-insensitive), user_ids and skip_users", async () => {
    const byName = await rpc.listMembers({ actor: owner.actor, group: { id: groupId }, query: "dana dev" });
    expect(userIdsOf(byName)).toEqual([dev.user.id]);
    const byUsername = await rpc.listMembers({
      actor: owner.actor,
      group: { id: groupId },
      query: guest.user.username.toUpperCase(),
    });
    expect(userIdsOf(byUsername)).toEqual([guest.user.id]);
    const wildcard = await rpc.listMembers({ actor: owner.actor, group: { id: groupId }, query: "%" });
    expect(wildcard.members).toEqual([]);
    const ids = await rpc.listMembers({
      actor: owner.actor,
      group: { id: groupId },
      userIds: [guest.user.id, owner.user.id, 999_999_999],
    });
    expect(userIdsOf(ids)).toEqual([owner.user.id, guest.user.id]);
    const skipped = await rpc.listMembers({
      actor: owner.actor,
      group: { id: groupId },
      skipUsers: [owner.user.id],
    });
    expect(userIdsOf(skipped)).toEqual([dev.user.id, guest.user.id]);
    expect(skipped.page!.total).toBe(2);
  });

  it("pages with GitLab's rules", async () => {
    const page2 = await rpc.listMembers({
      actor: owner.actor,
      group: { id: groupId },
      page: { page: 2, perPage: 2 },
    });
    expect(userIdsOf(page2)).toEqual([guest.user.id]);
    expect(page2.page).toMatchObject({ page: 2, perPage: 2, total: 3 });
    const capped = await rpc.listMembers({
      actor: owner.actor,
      group: { id: groupId },
      page: { page: 0, perPage: 500 },
    });
    expect(capped.page).toMatchObject({ page: 1, perPage: 100 });
  });

  it("lists blocked users as blocked and leaves minimal-access members out", async () => {
    const blocked = await h.newUser();
    const minimal = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, blocked, 20);
    await addAs(rpc, owner, g, minimal, 5);
    await changeUserState(h.authService, h.admin, blocked.user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    await waitForState(blocked.user.id, "blocked");
    const res = await rpc.listMembers({ actor: owner.actor, group: { id: g } });
    expect(res.members.map((m) => [m.user!.id, m.user!.state])).toEqual([
      [owner.user.id, "active"],
      [blocked.user.id, "blocked"],
    ]);
    expect(
      await failure(rpc.getMember({ actor: owner.actor, group: { id: g }, userId: minimal.user.id })),
    ).toMatchObject({
      code: status.NOT_FOUND,
      publicMessage: "404 Not found",
      httpStatus: 404,
    });
  });
});

async function waitForState(userId: number, state: string) {
  for (let i = 0; i < 150; i++) {
    const { rows } = await h.db.query("SELECT state FROM users WHERE id = $1", [userId]);
    if (rows[0]?.state === state) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`user ${userId} never became ${state}`);
}

describe("ListMembers, all: inherited and shared, one entry per user", () => {
  it("adds ancestors' members and invited groups' members capped at the link, keeping each user's highest", async () => {
    const owner = await h.newUser();
    const parentDev = await h.newUser();
    const both = await h.newUser();
    const invitedMember = await h.newUser();
    const top = (await h.newGroup(owner, { visibility: "public" })).id;
    const sub = (await h.newGroup(owner, { visibility: "public" }, top)).id;
    await addAs(rpc, owner, top, parentDev, 30);
    await addAs(rpc, owner, top, both, 20);
    await addAs(rpc, owner, sub, both, 40);
    const invitedOwner = await h.newUser();
    const invited = (await h.newGroup(invitedOwner, { visibility: "public" })).id;
    await addAs(rpc, invitedOwner, invited, invitedMember, 50);
    await share(h, top, invited, 20);

    const all = await rpc.listMembers({ actor: owner.actor, group: { id: sub }, scope: ALL });
    const levels = Object.fromEntries(all.members.map((m) => [m.user!.id, [m.accessLevel, m.sourceGroupId]]));
    expect(levels).toEqual({
      [owner.user.id]: [50, top],
      [parentDev.user.id]: [30, top],
      [both.user.id]: [40, sub],
      [invitedOwner.user.id]: [20, invited],
      [invitedMember.user.id]: [20, invited],
    });
    expect(all.page!.total).toBe(5);
    // Ordered by membership id.
    const ids = all.members.map((m) => m.user!.id);
    expect(ids.slice(0, 3)).toEqual([owner.user.id, parentDev.user.id, both.user.id]);

    const direct = await rpc.listMembers({ actor: owner.actor, group: { id: sub }, scope: DIRECT });
    expect(userIdsOf(direct)).toEqual([owner.user.id, both.user.id]);

    const one = await rpc.getMember({
      actor: owner.actor,
      group: { id: sub },
      scope: ALL,
      userId: parentDev.user.id,
    });
    expect(one).toMatchObject({ accessLevel: 30, sourceGroupId: top });
    expect(
      await failure(rpc.getMember({ actor: owner.actor, group: { id: sub }, userId: parentDev.user.id })),
    ).toMatchObject({ publicMessage: "404 Not found", httpStatus: 404 });
  });

  it("ignores expired links", async () => {
    const owner = await h.newUser();
    const other = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    const invited = (await h.newGroup(other)).id;
    await share(h, g, invited, 30, "2000-01-01");
    const all = await rpc.listMembers({ actor: owner.actor, group: { id: g }, scope: ALL });
    expect(userIdsOf(all)).toEqual([owner.user.id]);
  });

  it("hides members of an invited private group from callers who cannot read it, not from Owners", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const secretOwner = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, dev, 30);
    const secret = (await h.newGroup(secretOwner, { visibility: "private" })).id;
    await share(h, g, secret, 30);

    const asDev = await rpc.listMembers({ actor: dev.actor, group: { id: g }, scope: ALL });
    expect(userIdsOf(asDev)).toEqual([owner.user.id, dev.user.id]);
    expect(asDev.page!.total).toBe(2);
    expect(
      await failure(
        rpc.getMember({ actor: dev.actor, group: { id: g }, scope: ALL, userId: secretOwner.user.id }),
      ),
    ).toMatchObject({ code: status.NOT_FOUND });
    const asOwner = await rpc.listMembers({ actor: owner.actor, group: { id: g }, scope: ALL });
    expect([...userIdsOf(asOwner)].sort(numeric)).toEqual(
      [owner.user.id, secretOwner.user.id, dev.user.id].sort(numeric),
    );
    const asAdmin = await rpc.listMembers({ actor: h.admin, group: { id: g }, scope: ALL });
    expect(userIdsOf(asAdmin)).toContain(secretOwner.user.id);
    // A member of the invited group sees its members.
    const asSecretMember = await rpc.listMembers({ actor: secretOwner.actor, group: { id: g }, scope: ALL });
    expect(userIdsOf(asSecretMember)).toContain(secretOwner.user.id);
  });
});

const numeric = (a: number, b: number) => a - b;

describe("who may read members", () => {
  it("needs a signed-in caller, hides invisible groups, and refuses private groups seen only from below", async () => {
    const owner = await h.newUser();
    const subOnly = await h.newUser();
    const stranger = await h.newUser();
    const top = (await h.newGroup(owner)).id;
    const sub = (await h.newGroup(owner, {}, top)).id;
    await addAs(rpc, owner, sub, subOnly, 30);

    for (const scope of [DIRECT, ALL]) {
      expect(await failure(rpc.listMembers({ actor: ANONYMOUS, group: { id: top }, scope }))).toMatchObject({
        code: status.UNAUTHENTICATED,
      });
      expect(
        await failure(rpc.listMembers({ actor: stranger.actor, group: { id: top }, scope })),
      ).toMatchObject({
        code: status.NOT_FOUND,
        resource: "Group",
      });
      expect(
        await failure(rpc.listMembers({ actor: subOnly.actor, group: { id: top }, scope })),
      ).toMatchObject({
        code: status.PERMISSION_DENIED,
      });
      expect(
        await failure(
          rpc.getMember({ actor: subOnly.actor, group: { id: top }, scope, userId: owner.user.id }),
        ),
      ).toMatchObject({ code: status.PERMISSION_DENIED });
    }
    // Inherited access reads the subgroup's list; the administrator reads everything.
    expect(
      userIdsOf(await rpc.listMembers({ actor: subOnly.actor, group: { id: sub }, scope: ALL })),
    ).toEqual([owner.user.id, subOnly.user.id]);
    expect((await rpc.listMembers({ actor: h.admin, group: { id: top } })).members).toHaveLength(1);
  });

  it("lets any signed-in user read a public group's members, and internal ones", async () => {
    const owner = await h.newUser();
    const stranger = await h.newUser();
    for (const visibility of ["public", "internal"]) {
      const g = (await h.newGroup(owner, { visibility })).id;
      const res = await rpc.listMembers({ actor: stranger.actor, group: { id: g } });
      expect(userIdsOf(res)).toEqual([owner.user.id]);
    }
  });
});
