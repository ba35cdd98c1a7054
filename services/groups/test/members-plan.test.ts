import { startHarness, failure, status, type Harness } from "./support";
import { addAs, membersRpc } from "./members-support";

// Minimal access (5) is a premium feature: on the free plan it is just not a level (CE's message).
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ CANOPY_PLAN: "free" });
});
afterAll(() => h.stop());

it("refuses access level 5 on the free plan, even on a top-level group", async () => {
  const rpc = membersRpc(h);
  const owner = await h.newUser();
  const user = await h.newUser();
  const g = (await h.newGroup(owner)).id;
  expect(await failure(addAs(rpc, owner, g, user, 5))).toMatchObject({
    code: status.INVALID_ARGUMENT,
    fieldErrors: { access_level: ["is not included in the list"] },
  });
  expect((await addAs(rpc, owner, g, user, 10)).accessLevel).toBe(10);
});
