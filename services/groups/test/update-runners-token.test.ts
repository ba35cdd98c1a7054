/** runners_token: made at creation, sealed at rest, shown only to those who administer the group. */
import { startHarness, type Harness, type TestUser } from "./support";
import { addMember } from "./update-support";

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
});
afterAll(() => h.stop());

const TOKEN = /^GR1348941[A-Za-z0-9_-]{20}$/;
const tokenFor = async (actor: TestUser["actor"], id: number) =>
  (await h.rpc.getGroup({ actor, group: { id }, withRunnersToken: true })).runnersToken;
const stored = async (id: number) =>
  (await h.db.query("SELECT runners_token_encrypted FROM namespaces WHERE id = $1", [id])).rows[0]
    .runners_token_encrypted as Buffer | null;

it("is made with the group, stored sealed, and the same on every read", async () => {
  const g = await h.newGroup(owner);
  const sealed = await stored(g.id);
  expect(sealed).toBeInstanceOf(Buffer);
  const token = await tokenFor(owner.actor, g.id);
  expect(token).toMatch(TOKEN);
  expect(sealed!.includes(Buffer.from(token!))).toBe(false);
  expect(sealed!.includes(Buffer.from(token!.slice(9)))).toBe(false);
  expect(await tokenFor(owner.actor, g.id)).toBe(token);
  expect(await tokenFor(h.admin, g.id)).toBe(token);
  expect(
    (await h.rpc.updateGroup({ actor: owner.actor, group: { id: g.id }, attributes: {} })).runnersToken,
  ).toBe(token);
});

it("is shown to Owners (direct or inherited) and administrators only, and only when asked for", async () => {
  const top = await h.newGroup(owner, { visibility: "public" });
  const sub = await h.newGroup(owner, { visibility: "public" }, top.id);
  const maintainer = await h.newUser();
  const heir = await h.newUser();
  const stranger = await h.newUser();
  await addMember(h, sub.id, maintainer.user.id, 40);
  await addMember(h, top.id, heir.user.id, 50);
  expect(await tokenFor(maintainer.actor, sub.id)).toBeUndefined();
  expect(await tokenFor(stranger.actor, sub.id)).toBeUndefined();
  expect(await tokenFor(heir.actor, sub.id)).toMatch(TOKEN);
  expect((await h.rpc.getGroup({ actor: owner.actor, group: { id: sub.id } })).runnersToken).toBeUndefined();
  // Creation answers without it (GitLab's POST passes no admin flag to the entity).
  expect(
    (await h.rpc.createGroup({ actor: owner.actor, attributes: { name: "n", path: `${top.path}-x` } }))
      .runnersToken,
  ).toBeUndefined();
});

it("is given on first read to a group that has none (made before tokens existed), once, however many read at once", async () => {
  for (let round = 0; round < 5; round++) {
    const g = await h.newGroup(owner);
    await h.db.query("UPDATE namespaces SET runners_token_encrypted = NULL WHERE id = $1", [g.id]);
    const readers = Array.from({ length: 8 }, (_, i) => (i % 2 ? h.admin : owner.actor));
    const [a, ...others] = await Promise.all(readers.map((actor) => tokenFor(actor, g.id)));
    expect(a).toMatch(TOKEN);
    for (const b of others) expect(b).toBe(a);
    expect(await tokenFor(owner.actor, g.id)).toBe(a);
    expect(await stored(g.id)).toBeInstanceOf(Buffer);
  }
});

it("does not open when its sealed bytes are copied onto another group", async () => {
  const a = await h.newGroup(owner);
  const b = await h.newGroup(owner);
  await h.db.query(
    "UPDATE namespaces SET runners_token_encrypted = (SELECT runners_token_encrypted FROM namespaces WHERE id = $1) WHERE id = $2",
    [a.id, b.id],
  );
  await expect(tokenFor(owner.actor, b.id)).rejects.toThrow();
});
