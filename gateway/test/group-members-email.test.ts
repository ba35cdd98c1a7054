/**
 * `email` in the Member entity: GitLab EE shows it to administrators (and to owners of an
 * enterprise user's group, which Canopy has none of), never to anyone else, never in `created_by`.
 */
import { createAdmin, createToken, signedInUser, startStack, unique, waitFor, type Stack } from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

type MemberJson = Record<string, unknown> & { id: number; created_by?: Record<string, unknown> };

it("shows a member's e-mail to administrators only, and follows a change of it", async () => {
  const owner = await signedInUser(stack);
  const dev = await signedInUser(stack);
  const admin = await createAdmin(stack);
  const adminSecret = (await createToken(stack, admin.id)).token;
  const path = unique("me_");
  const g = (await stack.gw.post("/api/v4/groups", { token: owner.secret, json: { name: path, path } }))
    .body as { id: number };
  const added = await stack.gw.post(`/api/v4/groups/${g.id}/members`, {
    token: owner.secret,
    json: { user_id: dev.user.id, access_level: 30 },
  });
  expect(added.status).toBe(201);
  expect(added.body).not.toHaveProperty("email");

  const devIn = (body: unknown) => (body as MemberJson[]).find((m) => m.id === dev.user.id)!;
  for (const url of [`/api/v4/groups/${g.id}/members`, `/api/v4/groups/${g.id}/members/all`]) {
    const asOwner = await stack.gw.get(url, { token: owner.secret });
    expect(asOwner.status).toBe(200);
    expect((asOwner.body as MemberJson[]).every((m) => !("email" in m))).toBe(true);
    const asAdmin = await stack.gw.get(url, { token: adminSecret });
    expect(devIn(asAdmin.body).email).toBe(dev.user.email);
    expect(devIn(asAdmin.body).created_by).not.toHaveProperty("email");
  }
  const one = await stack.gw.get(`/api/v4/groups/${g.id}/members/${dev.user.id}`, { token: adminSecret });
  expect((one.body as MemberJson).email).toBe(dev.user.email);
  const changedLevel = await stack.gw.put(`/api/v4/groups/${g.id}/members/${dev.user.id}`, {
    token: adminSecret,
    json: { access_level: 20 },
  });
  expect(changedLevel.status).toBe(200);
  expect((changedLevel.body as MemberJson).email).toBe(dev.user.email);

  // A new address reaches the groups service's copy through auth's UserUpdated.
  const newEmail = `${unique("moved_")}@example.org`;
  const put = await stack.gw.put(`/api/v4/users/${dev.user.id}`, {
    token: stack.rootToken,
    json: { email: newEmail, skip_reconfirmation: true },
  });
  expect(put.status).toBe(200);
  await waitFor(
    "the new e-mail to reach the groups service",
    async () =>
      (
        await stack.db.query("SELECT 1 FROM groups.users WHERE id = $1 AND email = $2", [
          dev.user.id,
          newEmail,
        ])
      ).rowCount === 1,
    15_000,
  );
  const after = await stack.gw.get(`/api/v4/groups/${g.id}/members/${dev.user.id}`, { token: adminSecret });
  expect((after.body as MemberJson).email).toBe(newEmail);
});
