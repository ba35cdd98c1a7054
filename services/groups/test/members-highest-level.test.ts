import { startHarness, failure, status, ANONYMOUS, type Harness } from "./support";
import { addAs, membersRpc, share, type MembersRpc } from "./members-support";

// GetUserHighestAccessLevel: the group half of GitLab's highest_role (GET /users/:id for
// administrators): the highest level of the user's own unexpired group memberships.
let h: Harness;
let rpc: MembersRpc;
beforeAll(async () => {
  h = await startHarness();
  rpc = membersRpc(h);
});
afterAll(() => h.stop());

const highest = async (userId: number) =>
  (await rpc.getUserHighestAccessLevel({ actor: h.admin, userId })).accessLevel;

describe("GetUserHighestAccessLevel", () => {
  it("is 0 for a user without memberships (and for an unknown user)", async () => {
    const loner = await h.newUser();
    expect(await highest(loner.user.id)).toBe(0);
    expect(await highest(999_999_999)).toBe(0);
  });

  it("is the highest of the user's direct memberships, minimal access included", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const [a, b] = [(await h.newGroup(owner)).id, (await h.newGroup(owner)).id];
    await addAs(rpc, owner, a, member, 5);
    expect(await highest(member.user.id)).toBe(5);
    await addAs(rpc, owner, b, member, 30);
    expect(await highest(member.user.id)).toBe(30);
    // The group's creator is its owner.
    expect(await highest(owner.user.id)).toBe(50);
  });

  it("counts neither access that comes through a share nor expired memberships", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const team = (await h.newGroup(owner)).id;
    const shared = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, team, member, 20);
    await share(h, shared, team, 40);
    expect(await highest(member.user.id)).toBe(20);
    const other = (await h.newGroup(owner)).id;
    await addAs(rpc, owner, other, member, 40, "2999-01-01");
    expect(await highest(member.user.id)).toBe(40);
    await h.db.query(
      "UPDATE members SET expires_at = current_date - 1 WHERE namespace_id = $1 AND user_id = $2",
      [other, member.user.id],
    );
    expect(await highest(member.user.id)).toBe(20);
  });

  it("answers administrators only", async () => {
    const someone = await h.newUser();
    const denied = await failure(
      rpc.getUserHighestAccessLevel({ actor: someone.actor, userId: someone.user.id }),
    );
    expect(denied.code).toBe(status.PERMISSION_DENIED);
    const anonymous = await failure(
      rpc.getUserHighestAccessLevel({ actor: ANONYMOUS, userId: someone.user.id }),
    );
    expect(anonymous.code).toBe(status.UNAUTHENTICATED);
  });
});
