/** RemoveMember: who may remove whom, the last-owner rule, subresources, and users deleted in auth. */
import { startHarness, failure, status, waitFor, type Harness } from "./support";
import { addAs, ALL, memberEvents, membersRpc, type MembersRpc } from "./members-support";

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

describe("RemoveMember", () => {
  it("removes a member (Owner), or oneself, and records MemberRemoved", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const guest = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, dev, 30);
    await addAs(rpc, owner, g, guest, 10);
    expect(
      await failure(rpc.removeMember({ actor: guest.actor, group: { id: g }, userId: dev.user.id })),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await rpc.removeMember({ actor: guest.actor, group: { id: g }, userId: guest.user.id });
    await rpc.removeMember({ actor: owner.actor, group: { id: g }, userId: dev.user.id });
    expect(await levelOf(g, dev.user.id)).toBeUndefined();
    expect(await levelOf(g, guest.user.id)).toBeUndefined();
    expect((await memberEvents(h, g)).filter((e) => e.type === "removed").map((e) => e.userId)).toEqual([
      guest.user.id,
      dev.user.id,
    ]);
    expect(
      await failure(rpc.removeMember({ actor: owner.actor, group: { id: g }, userId: dev.user.id })),
    ).toMatchObject({
      code: status.NOT_FOUND,
      publicMessage: "404 Not found",
    });
  });

  it("refuses the last Owner, counting the ancestors' Owners", async () => {
    const owner = await h.newUser();
    const subOwner = await h.newUser();
    const top = (await h.newGroup(owner)).id;
    const sub = (await h.newGroup(owner, {}, top)).id;
    expect(
      await failure(rpc.removeMember({ actor: owner.actor, group: { id: top }, userId: owner.user.id })),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    // The subgroup's only direct Owner may go: the parent has one.
    await addAs(rpc, owner, sub, subOwner, 50);
    await rpc.removeMember({
      actor: owner.actor,
      group: { id: sub },
      userId: owner.user.id,
      skipSubresources: true,
    });
    await rpc.removeMember({ actor: subOwner.actor, group: { id: sub }, userId: subOwner.user.id });
    expect(
      (await rpc.listMembers({ actor: owner.actor, group: { id: sub }, scope: ALL })).members,
    ).toHaveLength(1);
  });

  it("also removes the user's subgroup memberships unless skip_subresources", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const top = (await h.newGroup(owner)).id;
    const sub = (await h.newGroup(owner, {}, top)).id;
    const subsub = (await h.newGroup(owner, {}, sub)).id;
    for (const g of [top, sub, subsub]) await addAs(rpc, owner, g, user, 30);
    await rpc.removeMember({
      actor: owner.actor,
      group: { id: sub },
      userId: user.user.id,
      skipSubresources: true,
    });
    expect([
      await levelOf(top, user.user.id),
      await levelOf(sub, user.user.id),
      await levelOf(subsub, user.user.id),
    ]).toEqual([30, undefined, 30]);
    await rpc.removeMember({ actor: owner.actor, group: { id: top }, userId: user.user.id });
    expect(await levelOf(subsub, user.user.id)).toBeUndefined();
    expect((await memberEvents(h, subsub)).filter((e) => e.type === "removed").map((e) => e.userId)).toEqual([
      user.user.id,
    ]);
  });

  it("answers 412 when the membership changed after If-Unmodified-Since", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const g = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, g, user, 30);
    expect(
      await failure(
        rpc.removeMember({
          actor: owner.actor,
          group: { id: g },
          userId: user.user.id,
          unmodifiedSince: new Date(0),
        }),
      ),
    ).toMatchObject({ httpStatus: 412, publicMessage: "412 Precondition Failed" });
    await rpc.removeMember({
      actor: owner.actor,
      group: { id: g },
      userId: user.user.id,
      unmodifiedSince: new Date(Date.now() + 60_000),
    });
    expect(await levelOf(g, user.user.id)).toBeUndefined();
  });
});

describe("a user deleted in auth", () => {
  it("loses every membership, each with a MemberRemoved event", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const a = (await h.newGroup(owner)).id;
    const b = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, a, user, 30);
    await addAs(rpc, owner, b, user, 20);
    await h.authRpc.deleteUser({ actor: h.admin, id: user.user.id });
    await waitFor(
      "the deletion to reach groups",
      async () => (await h.db.query("SELECT 1 FROM users WHERE id = $1", [user.user.id])).rowCount === 0,
      15_000,
    );
    expect(await levelOf(a, user.user.id)).toBeUndefined();
    expect(await levelOf(b, user.user.id)).toBeUndefined();
    for (const g of [a, b])
      expect((await memberEvents(h, g)).filter((e) => e.type === "removed").map((e) => e.userId)).toEqual([
        user.user.id,
      ]);
    expect(
      await failure(
        rpc.addMember({
          actor: owner.actor,
          group: { id: a },
          userId: user.user.id,
          accessLevel: 30,
          user: {
            userId: user.user.id,
            username: user.user.username,
            name: "",
            state: "active",
            admin: false,
            external: false,
            canCreateGroup: true,
            avatarUrl: "",
          },
        }),
      ),
    ).toMatchObject({ code: status.NOT_FOUND, resource: "User" });
  });
});
