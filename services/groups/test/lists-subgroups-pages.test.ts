import { groups } from "@canopy/protos";
import { ANONYMOUS, failed, failure, startHarness, status, unique, type Harness } from "./support";
import { addMember, idsOf, list, type ListOptions } from "./lists-support";

/** Subgroups and descendant groups (reference §4.7, §4.8, §7.2, §7.23) and both kinds of pages. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const SUBGROUPS = groups.GroupScope.GROUP_SCOPE_SUBGROUPS;
const DESCENDANTS = groups.GroupScope.GROUP_SCOPE_DESCENDANTS;
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

/** public top → public child, private child; public child → public grandchild. */
async function tree() {
  const owner = await h.newUser();
  const top = await h.newGroup(owner, { visibility: "public" });
  const pubChild = await h.newGroup(owner, { visibility: "public", path: unique("pc") }, top.id);
  const privChild = await h.newGroup(owner, { visibility: "private", path: unique("vc") }, top.id);
  const grandchild = await h.newGroup(owner, { visibility: "public", path: unique("gc") }, pubChild.id);
  return { owner, top, pubChild, privChild, grandchild };
}

describe("subgroups", () => {
  it("members of the parent see every child; anonymous callers the public ones", async () => {
    const t = await tree();
    const parent = { id: t.top.id };
    expect(sorted(idsOf(await list(h, t.owner, { scope: SUBGROUPS, parent })))).toEqual(
      sorted([t.pubChild.id, t.privChild.id]),
    );
    expect(idsOf(await list(h, ANONYMOUS, { scope: SUBGROUPS, parent }))).toEqual([t.pubChild.id]);
  });

  it("a signed-in stranger gets [] unless all_available (GitLab's surprise, §7.2)", async () => {
    const t = await tree();
    const stranger = await h.newUser();
    const parent = { fullPath: t.top.fullPath.toUpperCase() };
    expect(idsOf(await list(h, stranger, { scope: SUBGROUPS, parent }))).toEqual([]);
    expect(idsOf(await list(h, stranger, { scope: SUBGROUPS, parent, allAvailable: true }))).toEqual([
      t.pubChild.id,
    ]);
  });

  it("a member of one child sees that child among the parent's subgroups", async () => {
    const t = await tree();
    const member = await h.newUser();
    await addMember(h, t.privChild.id, member, 10);
    expect(idsOf(await list(h, member, { scope: SUBGROUPS, parent: { id: t.top.id } }))).toEqual([
      t.privChild.id,
    ]);
  });

  it("an invisible or missing parent is 404 Group", async () => {
    const owner = await h.newUser();
    const hidden = await h.newGroup(owner);
    const stranger = await h.newUser();
    for (const parent of [{ id: hidden.id }, { id: 999_999_999 }, { fullPath: "no/such/group" }])
      expect(await failure(list(h, stranger, { scope: SUBGROUPS, parent }))).toEqual(
        failed(status.NOT_FOUND, { resource: "Group" }),
      );
    expect(await failure(list(h, ANONYMOUS, { scope: DESCENDANTS, parent: { id: hidden.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
  });

  it("top_level_only replaces the parent: top-level groups, no lookup, no 404", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    await h.newGroup(owner, {}, top.id);
    const res = await list(h, owner, { scope: SUBGROUPS, parent: { id: 999_999_999 }, topLevelOnly: true });
    expect(idsOf(res)).toEqual([top.id]);
  });

  it("search matches the child's own path and name, not the parent's", async () => {
    const t = await tree();
    const parent = { id: t.top.id };
    expect(idsOf(await list(h, t.owner, { scope: SUBGROUPS, parent, search: t.top.path }))).toEqual([]);
    expect(
      idsOf(await list(h, t.owner, { scope: SUBGROUPS, parent, search: t.privChild.path.toUpperCase() })),
    ).toEqual([t.privChild.id]);
  });
});

describe("descendant_groups", () => {
  it("lists every depth below the parent, each on its own visibility", async () => {
    const t = await tree();
    const parent = { id: t.top.id };
    expect(sorted(idsOf(await list(h, t.owner, { scope: DESCENDANTS, parent })))).toEqual(
      sorted([t.pubChild.id, t.privChild.id, t.grandchild.id]),
    );
    expect(sorted(idsOf(await list(h, ANONYMOUS, { scope: DESCENDANTS, parent })))).toEqual(
      sorted([t.pubChild.id, t.grandchild.id]),
    );
    // Below a subgroup (the traversal range, not the root index).
    expect(idsOf(await list(h, t.owner, { scope: DESCENDANTS, parent: { id: t.pubChild.id } }))).toEqual([
      t.grandchild.id,
    ]);
  });

  it("a member inheriting access from an ancestor sees all descendants, private ones too", async () => {
    const t = await tree();
    const inheritor = await h.newUser();
    await addMember(h, t.top.id, inheritor, 10);
    const res = await list(h, inheritor, { scope: DESCENDANTS, parent: { id: t.pubChild.id } });
    expect(idsOf(res)).toEqual([t.grandchild.id]);
    const all = await list(h, inheritor, { scope: DESCENDANTS, parent: { id: t.top.id } });
    expect(all.page!.total).toBe(3);
  });
});

describe("offset pages", () => {
  async function seven() {
    const owner = await h.newUser();
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await h.newGroup(owner, { name: `G${i}` })).id);
    return { owner, ids };
  }

  it("pages with an exact total, and an empty page past the end", async () => {
    const { owner, ids } = await seven();
    const page = (n: number) => list(h, owner, { page: { page: n, perPage: 3, keyset: false, cursor: "" } });
    const p2 = await page(2);
    expect(idsOf(p2)).toEqual(ids.slice(3, 6));
    expect(p2.page).toMatchObject({ page: 2, perPage: 3, total: 7, totalCapped: false });
    const p3 = await page(3);
    expect(idsOf(p3)).toEqual(ids.slice(6));
    expect(p3.page!.total).toBe(7);
    const p9 = await page(9);
    expect(p9.groups).toEqual([]);
    expect(p9.page!.total).toBe(7);
    // GitLab's rules: page < 1 is 1, per_page over 100 is 100.
    const p0 = await list(h, owner, { page: { page: 0, perPage: 500, keyset: false, cursor: "" } });
    expect(p0.page).toMatchObject({ page: 1, perPage: 100, total: 7 });
  });
});

describe("keyset pages", () => {
  /** Pages through with cursors until the last page; returns every id seen, in order. */
  async function pageThrough(who: Parameters<typeof list>[1], options: ListOptions, perPage = 2) {
    const seen: number[] = [];
    let cursor = "";
    for (let i = 0; i < 20; i++) {
      const res = await list(h, who, { ...options, page: { page: 0, perPage, keyset: true, cursor } });
      seen.push(...idsOf(res));
      expect(res.page!.total).toBe(0);
      cursor = res.page!.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error("too many pages");
  }

  it.each([
    ["name", "asc"],
    ["name", "desc"],
    ["path", "asc"],
    ["path", "desc"],
    ["id", "asc"],
    ["id", "desc"],
    ["similarity", "asc"],
  ])("order_by=%s sort=%s gives the same rows as one offset page", async (orderBy, sort) => {
    const owner = await h.newUser();
    const p = unique("k");
    // Repeated names and paths across parents, so the tie-breakers matter.
    const a = await h.newGroup(owner, { path: `${p}_a`, name: "Same" });
    const b = await h.newGroup(owner, { path: `${p}_b`, name: "Same" });
    for (const parent of [a, b]) {
      await h.newGroup(owner, { path: "dup", name: "Same" }, parent.id);
      await h.newGroup(owner, { path: `${p}x`, name: "Other" }, parent.id);
    }
    const options = { orderBy, sort, search: orderBy === "similarity" ? p : "" };
    const all = idsOf(await list(h, owner, options));
    expect(all).toHaveLength(6);
    expect(await pageThrough(owner, options)).toEqual(all);
    expect(await pageThrough(owner, options, 4)).toEqual(all);
  });

  it("pages descendants anonymously too", async () => {
    const t = await tree();
    const options = { scope: DESCENDANTS, parent: { id: t.top.id } };
    expect(await pageThrough(ANONYMOUS, options, 1)).toEqual(idsOf(await list(h, ANONYMOUS, options)));
  });

  it("refuses a tampered cursor or one of another order with 400 cursor is invalid", async () => {
    const owner = await h.newUser();
    for (let i = 0; i < 3; i++) await h.newGroup(owner);
    const first = await list(h, owner, { page: { page: 0, perPage: 1, keyset: true, cursor: "" } });
    const cursor = first.page!.nextCursor;
    expect(cursor).not.toBe("");
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString()) as { o: string; k: unknown[] };
    const forge = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const bad = [
      "not a cursor!",
      "e30",
      forge({ ...decoded, k: [1, 2] }),
      forge({ ...decoded, k: [decoded.k[0], "1; DROP TABLE namespaces"] }),
      forge({ ...decoded, k: [decoded.k[0], 1e300] }),
      forge({ ...decoded, k: [decoded.k[0]] }),
      forge({ o: "similarity", k: decoded.k }),
    ];
    for (const c of bad)
      expect(
        await failure(list(h, owner, { page: { page: 0, perPage: 1, keyset: true, cursor: c } })),
      ).toEqual(failed(status.INVALID_ARGUMENT, { publicMessage: "cursor is invalid" }));
    // The same cursor under another order.
    expect(
      await failure(list(h, owner, { orderBy: "path", page: { page: 0, perPage: 1, keyset: true, cursor } })),
    ).toEqual(failed(status.INVALID_ARGUMENT, { publicMessage: "cursor is invalid" }));
  });
});
