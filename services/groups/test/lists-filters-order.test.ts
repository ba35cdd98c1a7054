import { groups } from "@canopy/protos";
import { ANONYMOUS, failed, failure, startHarness, status, unique, type Harness } from "./support";
import { idsOf, list, pathsOf, setCustomAttribute } from "./lists-support";

/** Filters, search words and orders of the group lists (reference §4.1, §1.7, §7.4, §7.5). */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe("filters", () => {
  it("skip_groups, top_level_only and visibility narrow the list", async () => {
    const owner = await h.newUser();
    const a = await h.newGroup(owner, { visibility: "public" });
    const b = await h.newGroup(owner, { visibility: "internal" });
    const child = await h.newGroup(owner, { visibility: "public" }, a.id);
    expect(sorted(idsOf(await list(h, owner, { skipGroups: [b.id] })))).toEqual(sorted([a.id, child.id]));
    expect(sorted(idsOf(await list(h, owner, { topLevelOnly: true })))).toEqual(sorted([a.id, b.id]));
    expect(sorted(idsOf(await list(h, owner, { visibility: "public" })))).toEqual(sorted([a.id, child.id]));
  });

  it("custom_attributes filter (all pairs must match) for administrators, ignored for others", async () => {
    const prefix = unique("ca");
    const owner = await h.newUser();
    const both = await h.newGroup(owner, { path: `${prefix}_both` });
    const one = await h.newGroup(owner, { path: `${prefix}_one` });
    await setCustomAttribute(h, both.id, "team", "red");
    await setCustomAttribute(h, both.id, "tier", "gold");
    await setCustomAttribute(h, one.id, "team", "red");
    const pairs = [
      { key: "team", value: "red" },
      { key: "tier", value: "gold" },
    ];
    expect(idsOf(await list(h, h.admin, { search: prefix, customAttributes: pairs }))).toEqual([both.id]);
    expect(sorted(idsOf(await list(h, h.admin, { search: prefix, customAttributes: [pairs[0]!] })))).toEqual(
      sorted([both.id, one.id]),
    );
    expect(sorted(idsOf(await list(h, owner, { customAttributes: pairs })))).toEqual(
      sorted([both.id, one.id]),
    );
  });

  it("with_custom_attributes and statistics are given to administrators only", async () => {
    const prefix = unique("wca");
    const owner = await h.newUser();
    const g = await h.newGroup(owner, { path: prefix });
    await setCustomAttribute(h, g.id, "b", "2");
    await setCustomAttribute(h, g.id, "a", "1");
    const asAdmin = await list(h, h.admin, { search: prefix, withCustomAttributes: true, statistics: true });
    expect(asAdmin.groups[0]!.customAttributes).toEqual([
      { key: "a", value: "1" },
      { key: "b", value: "2" },
    ]);
    expect(asAdmin.groups[0]!.statistics).toEqual(groups.GroupStatistics.fromPartial({}));
    const asOwner = await list(h, owner, { withCustomAttributes: true, statistics: true });
    expect(asOwner.groups[0]!.customAttributes).toEqual([]);
    expect(asOwner.groups[0]!.statistics).toBeUndefined();
  });
});

describe("search", () => {
  it("matches every word of 3+ characters anywhere in the full path or full name", async () => {
    const prefix = unique("s");
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { path: `${prefix}_alpha`, name: `${prefix} Alpha Team` });
    const sub = await h.newGroup(owner, { path: "beta", name: "Beta Squad" }, top.id);
    // The subgroup matches through its parent's path (full path), the words AND-ed.
    expect(sorted(idsOf(await list(h, owner, { search: prefix })))).toEqual(sorted([top.id, sub.id]));
    expect(idsOf(await list(h, owner, { search: `${prefix} squad` }))).toEqual([sub.id]);
    expect(idsOf(await list(h, owner, { search: `squad ${prefix} nomatch` }))).toEqual([]);
    // Short words are dropped when a long one remains.
    expect(idsOf(await list(h, owner, { search: `  SQUAD   be ` }))).toEqual([sub.id]);
    // A quoted phrase stays one word (the subgroup's full name holds its parent's name).
    expect(sorted(idsOf(await list(h, owner, { search: '"alpha team"' })))).toEqual(sorted([top.id, sub.id]));
    expect(idsOf(await list(h, owner, { search: '"team alpha"' }))).toEqual([]);
  });

  it("a query without any 3-character word must equal the path or name (case-insensitively)", async () => {
    const owner = await h.newUser();
    const ab = await h.newGroup(owner, { path: unique("ab"), name: "Ab" });
    const abc = await h.newGroup(owner, { path: unique("abc"), name: "Abc" });
    expect(idsOf(await list(h, owner, { search: "ab" }))).toEqual([ab.id]);
    expect(idsOf(await list(h, owner, { search: "AB" }))).toEqual([ab.id]);
    expect(idsOf(await list(h, owner))).toContain(abc.id);
  });

  it("% and _ are matched literally", async () => {
    const owner = await h.newUser();
    const under = await h.newGroup(owner, { path: unique("x_y_z"), name: "100 sure" });
    const plain = await h.newGroup(owner, { path: unique("xayaz"), name: "100 sure" });
    // As wildcards, "x_y" would match both paths and "1%0" both names.
    expect(idsOf(await list(h, owner, { search: "x_y" }))).toEqual([under.id]);
    expect(idsOf(await list(h, owner, { search: "1%0" }))).toEqual([]);
    expect(sorted(idsOf(await list(h, owner, { search: "100" })))).toEqual(sorted([under.id, plain.id]));
  });

  it("anonymous search never finds private groups", async () => {
    const prefix = unique("hid");
    const owner = await h.newUser();
    await h.newGroup(owner, { path: `${prefix}_private` });
    const res = await list(h, ANONYMOUS, { search: prefix });
    expect(res.groups).toEqual([]);
    expect(res.page!.total).toBe(0);
  });
});

describe("order", () => {
  async function trio() {
    const owner = await h.newUser();
    const p = unique("o");
    // Same name twice: the id decides, ascending, whatever the sort.
    const b1 = await h.newGroup(owner, { path: `${p}_c`, name: "Bravo" });
    const a = await h.newGroup(owner, { path: `${p}_b`, name: "Alpha" });
    const b2 = await h.newGroup(owner, { path: `${p}_a`, name: "Bravo" });
    return { owner, a, b1, b2 };
  }

  it("by name (default) with id ascending as tie-breaker, in both directions", async () => {
    const { owner, a, b1, b2 } = await trio();
    expect(idsOf(await list(h, owner))).toEqual([a.id, b1.id, b2.id]);
    expect(idsOf(await list(h, owner, { sort: "desc" }))).toEqual([b1.id, b2.id, a.id]);
  });

  it("by path and by id", async () => {
    const { owner, a, b1, b2 } = await trio();
    expect(idsOf(await list(h, owner, { orderBy: "path" }))).toEqual([b2.id, a.id, b1.id]);
    expect(idsOf(await list(h, owner, { orderBy: "path", sort: "desc" }))).toEqual([b1.id, a.id, b2.id]);
    expect(idsOf(await list(h, owner, { orderBy: "id" }))).toEqual([b1.id, a.id, b2.id]);
    expect(idsOf(await list(h, owner, { orderBy: "id", sort: "desc" }))).toEqual([b2.id, a.id, b1.id]);
  });

  it("by similarity with a search: closest first; without a search: by name", async () => {
    const owner = await h.newUser();
    const p = unique("sim");
    const exact = await h.newGroup(owner, { path: p, name: p });
    const longer = await h.newGroup(owner, { path: `${p}_with_a_much_longer_tail`, name: "zzz" });
    const mid = await h.newGroup(owner, { path: `${p}_tail`, name: "aaa" });
    const res = await list(h, owner, { search: p, orderBy: "similarity", sort: "asc" });
    expect(idsOf(res)).toEqual([exact.id, mid.id, longer.id]);
    expect(pathsOf(await list(h, owner, { orderBy: "similarity" }))).toEqual([
      mid.path,
      exact.path,
      longer.path,
    ]);
  });
});

describe("bad parameters", () => {
  it.each([
    [{ orderBy: "created_at" }, "order_by does not have a valid value"],
    [{ sort: "up" }, "sort does not have a valid value"],
    [{ visibility: "secret" }, "visibility does not have a valid value"],
    [{ minAccessLevel: 25 }, "min_access_level does not have a valid value"],
  ])("%o → 400 %s", async (options, message) => {
    const owner = await h.newUser();
    expect(await failure(list(h, owner, options))).toEqual(
      failed(status.INVALID_ARGUMENT, { publicMessage: message }),
    );
  });
});
