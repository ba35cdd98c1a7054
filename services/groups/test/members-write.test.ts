import { utcDate } from "@canopy/kit/testing";
import { startHarness, failure, status, ANONYMOUS, type Harness, type TestUser } from "./support";
import { addAs, memberEvents, membersRpc, type MembersRpc } from "./members-support";

let h: Harness;
let rpc: MembersRpc;
beforeAll(async () => {
  h = await startHarness();
  rpc = membersRpc(h);
});
afterAll(() => h.stop());

const levelOf = async (groupId: number, userId: number) =>
  (
    await h.db.query("SELECT access_level FROM members WHERE namespace_id = $1 AND user_id = $2", [
      groupId,
      userId,
    ])
  ).rows[0]?.access_level as number | undefined;

describe("AddMember", () => {
  it("adds a user with level and expiry, answers the Member, records MemberAdded", async () => {
    const owner = await h.newUser();
    const user = await h.newUser({ name: "New Member" });
    const g = (await h.newGroup(owner)).id;
    const expires = utcDate(30);
    const member = await addAs(rpc, owner, g, user, 30, expires);
    expect(member).toMatchObject({
      user: { id: user.user.id, username: user.user.username, name: "New Member", state: "active" },
      accessLevel: 30,
      expiresAt: expires,
      createdBy: { id: owner.user.id },
      sourceGroupId: g,
    });
    expect(await memberEvents(h, g)).toEqual([
      expect.objectContaining({ type: "added", userId: owner.user.id, accessLevel: 50 }),
      expect.objectContaining({ type: "added", userId: user.user.id, accessLevel: 30, expiresAt: expires }),
    ]);
  });

  it("adds by username, case-insensitively", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    const member = await rpc.addMember({
      actor: owner.actor,
      group: { id: g },
      username: user.user.username.toUpperCase(),
      accessLevel: 20,
    });
    expect(member.user!.id).toBe(user.user.id);
  });

  it("checks in GitLab's order: 401, 404 group, 403, 409, 404 user, then validations", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const user = await h.newUser();
    const stranger = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, maintainer, 40);
    const add = (actor: TestUser["actor"], userId: number, accessLevel = 30, expiresAt = "") =>
      failure(rpc.addMember({ actor, group: { id: g }, userId, accessLevel, expiresAt }));

    expect(await add(ANONYMOUS, user.user.id)).toMatchObject({ code: status.UNAUTHENTICATED });
    expect(await add(stranger.actor, user.user.id)).toMatchObject({
      code: status.NOT_FOUND,
      resource: "Group",
    });
    expect(await add(maintainer.actor, user.user.id)).toMatchObject({ code: status.PERMISSION_DENIED });
    // Already a member comes before the level is even looked at.
    expect(await add(owner.actor, maintainer.user.id, 99)).toMatchObject({
      code: status.ALREADY_EXISTS,
      publicMessage: "Member already exists",
    });
    expect(await add(owner.actor, 999_999_999, 99)).toMatchObject({
      code: status.NOT_FOUND,
      resource: "User",
    });
    expect(await add(owner.actor, user.user.id, 25, "2000-01-01")).toMatchObject({
      code: status.INVALID_ARGUMENT,
      fieldErrors: {
        access_level: ["is not included in the list"],
        expires_at: ["cannot be a date in the past"],
      },
    });
    expect(await levelOf(g, user.user.id)).toBeUndefined();
    // Today is not in the past.
    expect((await addAs(rpc, owner, g, user, 30, utcDate(0))).expiresAt).toBe(utcDate(0));
  });

  it("refuses a level below an inherited membership, naming the role and the ancestor", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const top = await h.newGroup(owner, { name: "Parent Group" });
    const sub = (await h.newGroup(owner, {}, top.id)).id;
    await addAs(rpc, owner, top.id, user, 30);
    expect(await failure(addAs(rpc, owner, sub, user, 20))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      fieldErrors: {
        access_level: [
          "should be greater than or equal to Developer inherited membership from group Parent Group",
        ],
      },
    });
    expect((await addAs(rpc, owner, sub, user, 30)).accessLevel).toBe(30);
  });

  it("takes minimal access (5) on a top-level group only (ultimate plan)", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const top = (await h.newGroup(owner)).id;
    const sub = (await h.newGroup(owner, {}, top)).id;
    expect(await failure(addAs(rpc, owner, sub, user, 5))).toMatchObject({
      fieldErrors: { access_level: ["is not included in the list", "supported on top level groups only"] },
    });
    expect((await addAs(rpc, owner, top, user, 5)).accessLevel).toBe(5);
  });

  it("lets an administrator add members to any group", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    const m = await rpc.addMember({
      actor: h.admin,
      group: { id: g },
      userId: user.user.id,
      accessLevel: 50,
    });
    expect(m).toMatchObject({ accessLevel: 50, createdBy: { id: h.admin.userId } });
  });

  it("fills a missing user copy from the gateway's hint, but never brings back a deleted user", async () => {
    const owner = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    const hint = {
      userId: 900_000_000 + Math.floor(Math.random() * 1_000_000),
      username: `hinted_${Date.now()}`,
      name: "Hinted",
      state: "active",
      admin: false,
      external: false,
      canCreateGroup: true,
      avatarUrl: "",
    };
    const m = await rpc.addMember({
      actor: owner.actor,
      group: { id: g },
      userId: hint.userId,
      accessLevel: 20,
      user: hint,
    });
    expect(m.user).toMatchObject({ id: hint.userId, username: hint.username, name: "Hinted" });

    const gone = { ...hint, userId: hint.userId + 1, username: `${hint.username}_gone` };
    await h.db.query("INSERT INTO deleted_users (id) VALUES ($1)", [gone.userId]);
    expect(
      await failure(
        rpc.addMember({
          actor: owner.actor,
          group: { id: g },
          userId: gone.userId,
          accessLevel: 20,
          user: gone,
        }),
      ),
    ).toMatchObject({ code: status.NOT_FOUND, resource: "User" });
    // A hint never overwrites the copy auth's events keep.
    const known = await h.newUser({ name: "Real Name" });
    const m2 = await rpc.addMember({
      actor: owner.actor,
      group: { id: g },
      userId: known.user.id,
      accessLevel: 20,
      user: { ...hint, userId: known.user.id, name: "Stale Name" },
    });
    expect(m2.user!.name).toBe("Real Name");
  });
});

describe("AddMembers (comma-separated ids)", () => {
  it("adds each new user, passes over members and unknown ids, and answers failures by username", async () => {
    const owner = await h.newUser();
    const a = await h.newUser();
    const b = await h.newUser();
    const inherited = await h.newUser();
    const top = (await h.newGroup(owner, { name: "Top" })).id;
    const g = (await h.newGroup(owner, {}, top)).id;
    await addAs(rpc, owner, top, inherited, 40);
    const res = await rpc.addMembers({
      actor: owner.actor,
      group: { id: g },
      userIds: [a.user.id, b.user.id, owner.user.id, inherited.user.id, 999_999_999],
      accessLevel: 30,
    });
    expect(res.errors).toEqual({
      [inherited.user.username]:
        "Access level should be greater than or equal to Maintainer inherited membership from group Top",
    });
    expect(await levelOf(g, a.user.id)).toBe(30);
    expect(await levelOf(g, b.user.id)).toBe(30);
    expect(await levelOf(g, owner.user.id)).toBe(50);
    expect(await levelOf(g, inherited.user.id)).toBeUndefined();
  });
});

describe("UpdateMember", () => {
  it("changes level and expiry, records MemberUpdated only on a real change", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, user, 30);
    const expires = utcDate(10);
    const updated = await rpc.updateMember({
      actor: owner.actor,
      group: { id: g },
      userId: user.user.id,
      accessLevel: 40,
      expiresAt: expires,
    });
    expect(updated).toMatchObject({ accessLevel: 40, expiresAt: expires });
    await rpc.updateMember({ actor: owner.actor, group: { id: g }, userId: user.user.id, accessLevel: 40 });
    const cleared = await rpc.updateMember({
      actor: owner.actor,
      group: { id: g },
      userId: user.user.id,
      accessLevel: 40,
      clearExpiresAt: true,
    });
    expect(cleared.expiresAt).toBe("");
    const updates = (await memberEvents(h, g)).filter((e) => e.type === "updated");
    expect(updates).toEqual([
      expect.objectContaining({
        userId: user.user.id,
        accessLevel: 40,
        expiresAt: expires,
        oldAccessLevel: 30,
      }),
      expect.objectContaining({ userId: user.user.id, accessLevel: 40, expiresAt: "", oldAccessLevel: 40 }),
    ]);
  });

  it("answers 403 for non-Owners, 404 Not found for non-members, 400 for bad values, 403 for the last Owner", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const stranger = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, dev, 30);
    const update = (actor: TestUser["actor"], userId: number, accessLevel: number, expiresAt = "") =>
      failure(rpc.updateMember({ actor, group: { id: g }, userId, accessLevel, expiresAt }));
    expect(await update(dev.actor, dev.user.id, 40)).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await update(owner.actor, stranger.user.id, 40)).toMatchObject({
      code: status.NOT_FOUND,
      publicMessage: "404 Not found",
      httpStatus: 404,
    });
    expect(await update(owner.actor, dev.user.id, 60, "1999-12-31")).toMatchObject({
      fieldErrors: {
        access_level: ["is not included in the list"],
        expires_at: ["cannot be a date in the past"],
      },
    });
    expect(await update(owner.actor, owner.user.id, 40)).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await levelOf(g, owner.user.id)).toBe(50);
    // With a second Owner the first may step down.
    await rpc.updateMember({ actor: owner.actor, group: { id: g }, userId: dev.user.id, accessLevel: 50 });
    expect(
      (
        await rpc.updateMember({
          actor: owner.actor,
          group: { id: g },
          userId: owner.user.id,
          accessLevel: 40,
        })
      ).accessLevel,
    ).toBe(40);
  });
});
