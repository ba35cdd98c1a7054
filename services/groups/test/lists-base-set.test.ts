import { ANONYMOUS, startHarness, unique, type Harness, type TestUser } from "./support";
import { addMember, idsOf, list, share } from "./lists-support";

/** Who sees what in GET /groups (reference §4.1 base set, §7.1, §7.21). */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/**
 * One owner's world, every group's path starting with a prefix of its own: a public, an internal
 * and a private top-level group, and a private subgroup under the public one.
 */
async function world() {
  const prefix = unique("w");
  const owner = await h.newUser();
  const pub = await h.newGroup(owner, { path: `${prefix}_pub`, visibility: "public" });
  const int = await h.newGroup(owner, { path: `${prefix}_int`, visibility: "internal" });
  const priv = await h.newGroup(owner, { path: `${prefix}_priv`, visibility: "private" });
  const pubChild = await h.newGroup(owner, { path: `${prefix}_pubchild`, visibility: "private" }, pub.id);
  return { prefix, owner, pub, int, priv, pubChild };
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe("the base set of GET /groups", () => {
  it("anonymous callers see every public group and nothing else", async () => {
    const w = await world();
    const res = await list(h, ANONYMOUS, { search: w.prefix });
    expect(idsOf(res)).toEqual([w.pub.id]);
    expect(res.page!.total).toBe(1);
  });

  it("a signed-in stranger sees none of them, unless all_available (then public and internal)", async () => {
    const w = await world();
    const stranger = await h.newUser();
    expect(idsOf(await list(h, stranger, { search: w.prefix }))).toEqual([]);
    const all = await list(h, stranger, { search: w.prefix, allAvailable: true });
    expect(sorted(idsOf(all))).toEqual(sorted([w.pub.id, w.int.id]));
  });

  it("counts all_available lists exactly: groups visible to all plus the caller's own private ones", async () => {
    const w = await world();
    const viewer = await h.newUser();
    const own = await h.newGroup(viewer, { path: `${w.prefix}_own` });
    const res = await list(h, viewer, {
      search: w.prefix,
      allAvailable: true,
      page: { page: 1, perPage: 1, keyset: false, cursor: "" },
    });
    expect(res.page).toMatchObject({ total: 3, totalCapped: false });
    const all = await list(h, viewer, { search: w.prefix, allAvailable: true });
    expect(sorted(idsOf(all))).toEqual(sorted([w.pub.id, w.int.id, own.id]));
  });

  it("an external user with all_available sees public groups only", async () => {
    const w = await world();
    const external = await h.newUser({ external: true });
    const all = await list(h, external, { search: w.prefix, allAvailable: true });
    expect(idsOf(all)).toEqual([w.pub.id]);
  });

  it("the owner sees all their groups by default, and the list counts exactly them", async () => {
    const w = await world();
    const res = await list(h, w.owner);
    expect(sorted(idsOf(res))).toEqual(sorted([w.pub.id, w.int.id, w.priv.id, w.pubChild.id]));
    expect(res.page).toMatchObject({ total: 4, totalCapped: false, page: 1, perPage: 100 });
  });

  it("a member of a subgroup only sees the subgroup, its (private) ancestors and its descendants", async () => {
    const prefix = unique("anc");
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { path: `${prefix}_top` });
    const mid = await h.newGroup(owner, { path: `${prefix}_mid` }, top.id);
    const leaf = await h.newGroup(owner, { path: `${prefix}_leaf` }, mid.id);
    const sibling = await h.newGroup(owner, { path: `${prefix}_sib` }, top.id);
    const member: TestUser = await h.newUser();
    await addMember(h, mid.id, member, 30);
    expect(sorted(idsOf(await list(h, member)))).toEqual(sorted([top.id, mid.id, leaf.id]));
    expect(idsOf(await list(h, member))).not.toContain(sibling.id);
  });

  it("groups shared with the caller's group are listed, with their descendants", async () => {
    const owner = await h.newUser();
    const shared = await h.newGroup(owner);
    const below = await h.newGroup(owner, {}, shared.id);
    const team = await h.newGroup(owner);
    const member = await h.newUser();
    await addMember(h, team.id, member, 30);
    await share(h, shared.id, team.id, 20);
    expect(sorted(idsOf(await list(h, member)))).toEqual(sorted([shared.id, below.id, team.id]));
  });

  it("expired memberships and blocked users give nothing", async () => {
    const owner = await h.newUser();
    const g = await h.newGroup(owner);
    const expired = await h.newUser();
    await addMember(h, g.id, expired, 30, "2001-01-01");
    expect(idsOf(await list(h, expired))).toEqual([]);
    const blocked = await h.newUser();
    await addMember(h, g.id, blocked, 30);
    await h.db.query("UPDATE users SET state = 'blocked' WHERE id = $1", [blocked.user.id]);
    expect(idsOf(await list(h, blocked))).toEqual([]);
  });

  it("administrators see every group by default, and only their own with all_available=false", async () => {
    const w = await world();
    const all = await list(h, h.admin, { search: w.prefix });
    expect(sorted(idsOf(all))).toEqual(sorted([w.pub.id, w.int.id, w.priv.id, w.pubChild.id]));
    const own = await list(h, h.admin, { search: w.prefix, allAvailable: false });
    expect(idsOf(own)).toEqual([]);
  });
});

describe("owned and min_access_level", () => {
  it("owned lists direct Owner memberships only, whatever all_available says", async () => {
    const owner = await h.newUser();
    const mine = await h.newGroup(owner);
    const child = await h.newGroup(owner, {}, mine.id);
    const other = await h.newUser();
    const theirs = await h.newGroup(other, { visibility: "public" });
    await addMember(h, theirs.id, owner, 40);
    const res = await list(h, owner, { owned: true, allAvailable: true });
    // The creator is an Owner member of the subgroup too (reference §7.26).
    expect(sorted(idsOf(res))).toEqual(sorted([mine.id, child.id]));
    const inheritor = await h.newUser();
    await addMember(h, mine.id, inheritor, 50);
    expect(idsOf(await list(h, inheritor, { owned: true }))).toEqual([mine.id]);
  });

  it("anonymous callers own nothing", async () => {
    expect(idsOf(await list(h, ANONYMOUS, { owned: true }))).toEqual([]);
  });

  it("min_access_level counts direct memberships at that level or above, plus their descendants", async () => {
    const owner = await h.newUser();
    const high = await h.newGroup(owner);
    const highChild = await h.newGroup(owner, {}, high.id);
    const low = await h.newGroup(owner);
    const viaShare = await h.newGroup(owner);
    const team = await h.newGroup(owner);
    const user = await h.newUser();
    await addMember(h, high.id, user, 40);
    await addMember(h, low.id, user, 10);
    await addMember(h, team.id, user, 10);
    await share(h, viaShare.id, team.id, 50);
    const res = await list(h, user, { minAccessLevel: 30 });
    expect(sorted(idsOf(res))).toEqual(sorted([high.id, highChild.id]));
    const guests = await list(h, user, { minAccessLevel: 10 });
    expect(sorted(idsOf(guests))).toEqual(sorted([high.id, highChild.id, low.id, team.id]));
  });

  it("min_access_level is ignored for anonymous callers (public groups)", async () => {
    const w = await world();
    expect(idsOf(await list(h, ANONYMOUS, { search: w.prefix, minAccessLevel: 50 }))).toEqual([w.pub.id]);
  });
});

describe("a group being removed (free plan: hidden at once, removed in the background)", () => {
  it("is in no list: not for anonymous callers, members or administrators", async () => {
    const w = await world();
    await h.db.query("UPDATE namespaces SET pending_removal = true WHERE traversal_ids[1] = $1", [w.pub.id]);
    expect(idsOf(await list(h, ANONYMOUS, { search: w.prefix }))).toEqual([]);
    expect(sorted(idsOf(await list(h, w.owner, { search: w.prefix })))).toEqual(
      sorted([w.int.id, w.priv.id]),
    );
    expect(sorted(idsOf(await list(h, h.admin, { search: w.prefix })))).toEqual(
      sorted([w.int.id, w.priv.id]),
    );
  });
});
