import {
  EXTERNAL_URL,
  expectError,
  expectJsonHeaders,
  signedInUser,
  startStack,
  unique,
  UNAUTHORIZED,
  type Stack,
} from "./support";

/** GET /groups, /groups/:id/subgroups, /groups/:id/descendant_groups over HTTP. */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

type Listed = { id: number; path: string; [k: string]: unknown };
const api = "/api/v4";

async function newGroup(token: string, attributes: Record<string, unknown>) {
  const res = await stack.gw.post(`${api}/groups`, { token, json: { name: attributes.path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as Listed;
}

/** A user with a public top group, a private and a public child under it. */
async function world() {
  const owner = await signedInUser(stack);
  const prefix = unique("hl");
  const top = await newGroup(owner.secret, { path: `${prefix}_top`, visibility: "public" });
  const priv = await newGroup(owner.secret, { path: `${prefix}_priv`, parent_id: top.id });
  const pub = await newGroup(owner.secret, {
    path: `${prefix}_pub`,
    parent_id: top.id,
    visibility: "public",
  });
  return { owner, prefix, top, priv, pub };
}

const ids = (body: unknown) => (body as Listed[]).map((g) => g.id);

describe("GET /groups", () => {
  it("answers the list entity with every offset header", async () => {
    const w = await world();
    const res = await stack.gw.get(`${api}/groups?search=${w.prefix}&per_page=2`);
    expect(res.status).toBe(200);
    expectJsonHeaders(res);
    expect(ids(res.body)).toEqual([w.pub.id, w.top.id]);
    const first = (res.body as Listed[])[1]!;
    expect(first).toMatchObject({
      id: w.top.id,
      path: w.top.path,
      full_path: w.top.path,
      web_url: `${EXTERNAL_URL}/groups/${w.top.path}`,
      visibility: "public",
      parent_id: null,
    });
    expect(first).not.toHaveProperty("shared_with_groups");
    expect(first).not.toHaveProperty("projects");
    expect(first).not.toHaveProperty("statistics");
    expect(res.headers.get("x-total")).toBe("2");
    expect(res.headers.get("x-total-pages")).toBe("1");
    expect(res.headers.get("x-page")).toBe("1");
    expect(res.headers.get("x-per-page")).toBe("2");
    expect(res.headers.get("x-next-page")).toBe("");
    expect(res.headers.get("x-prev-page")).toBe("");
    expect(res.headers.get("link")).toContain('rel="first"');
    expect(res.headers.get("link")).toContain(`${EXTERNAL_URL}/api/v4/groups?`);
  });

  it("lists the signed-in member's groups only, all visible ones with all_available", async () => {
    const w = await world();
    const stranger = await signedInUser(stack);
    const mine = await stack.gw.get(`${api}/groups`, { token: w.owner.secret });
    expect(ids(mine.body).sort()).toEqual([w.top.id, w.priv.id, w.pub.id].sort());
    const theirs = await stack.gw.get(`${api}/groups?search=${w.prefix}`, { token: stranger.secret });
    expect(theirs.body).toEqual([]);
    expect(theirs.headers.get("x-total")).toBe("0");
    expect(theirs.headers.get("x-total-pages")).toBe("1");
    const all = await stack.gw.get(`${api}/groups?search=${w.prefix}&all_available=true`, {
      token: stranger.secret,
    });
    expect(ids(all.body)).toEqual([w.pub.id, w.top.id]);
  });

  it.each([
    ["order_by=created_at", "order_by does not have a valid value"],
    ["sort=sideways", "sort does not have a valid value"],
    ["visibility=secret", "visibility does not have a valid value"],
    ["min_access_level=25", "min_access_level does not have a valid value"],
    ["min_access_level=abc", "min_access_level is invalid"],
    ["statistics=maybe", "statistics is invalid"],
    ["skip_groups=abc", "skip_groups is invalid"],
    ["page=x", "page is invalid"],
    ["pagination=pages", "pagination does not have a valid value"],
    ["all_available=perhaps&owned=sometimes", "all_available is invalid, owned is invalid"],
  ])("?%s → 400 %s", async (query, error) => {
    expectError(await stack.gw.get(`${api}/groups?${query}`), 400, { error });
  });

  it("refuses a bad token with 401 rather than answering anonymously", async () => {
    expectError(await stack.gw.get(`${api}/groups`, { token: "glpat-nonsense" }), 401, UNAUTHORIZED);
  });

  it("gives anonymous callers at most 50,000 rows by offset (405), not signed-in ones", async () => {
    expectError(await stack.gw.get(`${api}/groups?page=501&per_page=100`), 405, {
      error:
        "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Group. Remaining records can be retrieved using keyset pagination.",
    });
    const ok = await stack.gw.get(`${api}/groups?page=2501&per_page=20`, {
      token: (await signedInUser(stack)).secret,
    });
    expect(ok.status).toBe(200);
    expect((await stack.gw.get(`${api}/groups?page=501&per_page=100&pagination=keyset`)).status).toBe(200);
  });

  it("administrators: custom_attributes filter, with_custom_attributes and statistics", async () => {
    const w = await world();
    const admin = await signedInUser(stack, ["api"], { admin: true });
    await stack.db.query(
      "INSERT INTO groups.custom_attributes (namespace_id, key, value) VALUES ($1, 'team', 'red')",
      [w.pub.id],
    );
    const res = await stack.gw.get(
      `${api}/groups?search=${w.prefix}&custom_attributes[team]=red&with_custom_attributes=true&statistics=true`,
      { token: admin.secret },
    );
    expect(ids(res.body)).toEqual([w.pub.id]);
    expect((res.body as Listed[])[0]).toMatchObject({
      custom_attributes: [{ key: "team", value: "red" }],
      statistics: {
        storage_size: 0,
        repository_size: 0,
        wiki_size: 0,
        lfs_objects_size: 0,
        job_artifacts_size: 0,
        pipeline_artifacts_size: 0,
        packages_size: 0,
        snippets_size: 0,
        uploads_size: 0,
      },
    });
    const empty = await stack.gw.get(`${api}/groups?search=${w.prefix}_top&with_custom_attributes=true`, {
      token: admin.secret,
    });
    expect((empty.body as Listed[])[0]!.custom_attributes).toEqual([]);
    // The owner is no administrator: the filter and the extras are silently ignored.
    const owner = await stack.gw.get(
      `${api}/groups?custom_attributes[team]=red&with_custom_attributes=true&statistics=true`,
      { token: w.owner.secret },
    );
    expect(ids(owner.body)).toHaveLength(3);
    expect((owner.body as Listed[])[0]).not.toHaveProperty("custom_attributes");
    expect((owner.body as Listed[])[0]).not.toHaveProperty("statistics");
  });
});

describe("keyset pages over HTTP", () => {
  it("gives only Link rel=next with an opaque cursor, followed to the end", async () => {
    const w = await world();
    const seen: number[] = [];
    let url: string | undefined = `${api}/groups?pagination=keyset&per_page=1&order_by=path&sort=desc`;
    for (let i = 0; url && i < 10; i++) {
      const res = await stack.gw.get(url, { token: w.owner.secret });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-total")).toBeNull();
      expect(res.headers.get("x-page")).toBeNull();
      seen.push(...ids(res.body));
      const link = res.headers.get("link");
      if (!link) break;
      const m = /^<([^>]+)>; rel="next"$/.exec(link);
      expect(m).not.toBeNull();
      url = m![1]!.replace(EXTERNAL_URL, "");
    }
    const byOffset = await stack.gw.get(`${api}/groups?order_by=path&sort=desc`, { token: w.owner.secret });
    expect(seen).toEqual(ids(byOffset.body));
    expect(seen).toHaveLength(3);
  });

  it("refuses a tampered cursor with 400", async () => {
    expectError(await stack.gw.get(`${api}/groups?pagination=keyset&cursor=eyJvIjoxfQ`), 400, {
      error: "cursor is invalid",
    });
  });
});

describe("GET /groups/:id/subgroups and /descendant_groups", () => {
  it("lists children and descendants by id or URL-encoded path", async () => {
    const w = await world();
    const grandchild = await newGroup(w.owner.secret, {
      path: `${w.prefix}_gc`,
      parent_id: w.pub.id,
      visibility: "public",
    });
    const sub = await stack.gw.get(`${api}/groups/${w.top.id}/subgroups`, { token: w.owner.secret });
    expect(sub.status).toBe(200);
    expect(ids(sub.body).sort()).toEqual([w.priv.id, w.pub.id].sort());
    const desc = await stack.gw.get(`${api}/groups/${encodeURIComponent(w.top.path)}/descendant_groups`);
    expect(ids(desc.body)).toEqual([grandchild.id, w.pub.id]);
    expect(desc.headers.get("x-total")).toBe("2");
    expect(desc.headers.get("link")).toContain(
      `/api/v4/groups/${encodeURIComponent(w.top.path)}/descendant_groups?`,
    );
  });

  it("404s an invisible parent with GitLab's body; top_level_only skips the lookup", async () => {
    const owner = await signedInUser(stack);
    const hidden = await newGroup(owner.secret, { path: unique("hid") });
    for (const path of ["subgroups", "descendant_groups"]) {
      expectError(await stack.gw.get(`${api}/groups/${hidden.id}/${path}`), 404, {
        message: "404 Group Not Found",
      });
    }
    const top = await stack.gw.get(`${api}/groups/999999999/subgroups?top_level_only=true`, {
      token: owner.secret,
    });
    expect(top.status).toBe(200);
    expect(ids(top.body)).toEqual([hidden.id]);
  });
});

describe("counts past 10,000", () => {
  it("omits X-Total, X-Total-Pages and rel=last, and keeps paging", async () => {
    const owner = await signedInUser(stack);
    const root = await newGroup(owner.secret, { path: unique("big") });
    await stack.db.query(
      `INSERT INTO groups.namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name)
       SELECT id, 'group', $1, ARRAY[$1::bigint, id], 'c' || i, 'c' || i, $2 || '/c' || i, $2 || ' / c' || i
         FROM (SELECT nextval(pg_get_serial_sequence('groups.namespaces', 'id')) AS id, i
                 FROM generate_series(1, 10001) i) s`,
      [root.id, root.path],
    );
    const res = await stack.gw.get(`${api}/groups/${root.id}/descendant_groups?per_page=100&page=3`, {
      token: owner.secret,
    });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toHaveLength(100);
    expect(res.headers.get("x-total")).toBeNull();
    expect(res.headers.get("x-total-pages")).toBeNull();
    expect(res.headers.get("x-next-page")).toBe("4");
    expect(res.headers.get("link")).not.toContain('rel="last"');
    const mine = await stack.gw.get(`${api}/groups`, { token: owner.secret });
    expect(mine.headers.get("x-total")).toBeNull();
  });
});
