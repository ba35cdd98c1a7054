import {
  EXTERNAL_URL,
  expectError,
  signedInUser,
  startStack,
  unique,
  UNAUTHORIZED,
  waitFor,
  type Stack,
} from "./support";

/** GET /namespaces and GET /namespaces/:id (GitLab lib/api/namespaces.rb). */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

type Ns = { id: number; kind: string; full_path: string; [k: string]: unknown };
const api = "/api/v4";
const NOT_FOUND = { message: "404 Namespace Not Found" };

async function newGroup(token: string, attributes: Record<string, unknown>) {
  const res = await stack.gw.post(`${api}/groups`, { token, json: { name: attributes.path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as { id: number; path: string; full_path: string };
}

/** A signed-in user whose personal namespace the groups service already holds. */
async function userWithNamespace() {
  const u = await signedInUser(stack);
  await waitFor("the personal namespace", async () => {
    const res = await stack.gw.get(`${api}/namespaces`, { token: u.secret });
    return (res.body as Ns[]).some((n) => n.kind === "user");
  });
  return u;
}

describe("GET /namespaces", () => {
  it("lists the caller's own namespace and their groups, by id", async () => {
    const u = await userWithNamespace();
    const top = await newGroup(u.secret, { path: unique("ns") });
    const sub = await newGroup(u.secret, { path: "inner", parent_id: top.id });
    const res = await stack.gw.get(`${api}/namespaces`, { token: u.secret });
    expect(res.status).toBe(200);
    const body = res.body as Ns[];
    expect(body.map((n) => n.id)).toEqual([...body.map((n) => n.id)].sort((a, b) => a - b));
    const mine = body.find((n) => n.kind === "user")!;
    expect(mine).toMatchObject({
      name: u.user.name,
      path: u.user.username,
      full_path: u.user.username,
      parent_id: null,
      web_url: `${EXTERNAL_URL}/${u.user.username}`,
    });
    expect(body.find((n) => n.id === sub.id)).toEqual({
      id: sub.id,
      name: "inner",
      path: "inner",
      kind: "group",
      full_path: `${top.path}/inner`,
      parent_id: top.id,
      avatar_url: null,
      web_url: `${EXTERNAL_URL}/groups/${top.path}/inner`,
      members_count_with_descendants: 1,
      billable_members_count: 1,
      plan: "ultimate",
      trial_ends_on: null,
      trial: false,
    });
    expect(res.headers.get("x-total")).toBe("3");
  });

  it("owned_only, top_level_only and search narrow it; others' groups never show", async () => {
    const u = await userWithNamespace();
    const other = await signedInUser(stack);
    const owned = await newGroup(u.secret, { path: unique("own") });
    const child = await newGroup(u.secret, { path: unique("kid"), parent_id: owned.id });
    const theirs = await newGroup(other.secret, { path: unique("their"), visibility: "public" });
    await stack.db.query(
      "INSERT INTO groups.members (namespace_id, user_id, access_level) VALUES ($1, $2, 30)",
      [theirs.id, u.user.id],
    );
    const all = await stack.gw.get(`${api}/namespaces`, { token: u.secret });
    expect((all.body as Ns[]).map((n) => n.id)).toContain(theirs.id);
    const ownedOnly = await stack.gw.get(`${api}/namespaces?owned_only=true`, { token: u.secret });
    expect((ownedOnly.body as Ns[]).map((n) => n.id)).not.toContain(theirs.id);
    expect((ownedOnly.body as Ns[]).filter((n) => n.kind === "group").map((n) => n.id)).toEqual([
      owned.id,
      child.id,
    ]);
    const top = await stack.gw.get(`${api}/namespaces?top_level_only=true`, { token: u.secret });
    expect((top.body as Ns[]).map((n) => n.id)).not.toContain(child.id);
    const found = await stack.gw.get(`${api}/namespaces?search=${child.path}`, { token: u.secret });
    expect((found.body as Ns[]).map((n) => n.id)).toEqual([child.id]);
    // Without full_path_search the parent's path does not match the child.
    const byParent = await stack.gw.get(`${api}/namespaces?search=${owned.path}`, { token: u.secret });
    expect((byParent.body as Ns[]).map((n) => n.id)).toEqual([owned.id]);
    const full = await stack.gw.get(`${api}/namespaces?search=${owned.path}&full_path_search=true`, {
      token: u.secret,
    });
    expect((full.body as Ns[]).map((n) => n.id)).toEqual([owned.id, child.id]);
    // A Developer sees no member count.
    expect((all.body as Ns[]).find((n) => n.id === theirs.id)).not.toHaveProperty(
      "members_count_with_descendants",
    );
  });

  it("needs a signed-in caller; bad parameters are Grape's 400", async () => {
    expectError(await stack.gw.get(`${api}/namespaces`), 401, UNAUTHORIZED);
    const u = await signedInUser(stack);
    expectError(await stack.gw.get(`${api}/namespaces?owned_only=maybe`, { token: u.secret }), 400, {
      error: "owned_only is invalid",
    });
  });

  it("administrators list every namespace", async () => {
    const admin = await signedInUser(stack, ["api"], { admin: true });
    const stranger = await signedInUser(stack);
    const g = await newGroup(stranger.secret, { path: unique("adm") });
    const res = await stack.gw.get(`${api}/namespaces?search=${g.path}`, { token: admin.secret });
    expect((res.body as Ns[]).map((n) => n.id)).toEqual([g.id]);
    expect((res.body as Ns[])[0]).toHaveProperty("members_count_with_descendants", 1);
  });
});

describe("GET /namespaces/:id", () => {
  it("answers by id or URL-encoded path to members, owners and administrators", async () => {
    const u = await userWithNamespace();
    const top = await newGroup(u.secret, { path: unique("one") });
    const sub = await newGroup(u.secret, { path: "two", parent_id: top.id });
    const byPath = await stack.gw.get(`${api}/namespaces/${encodeURIComponent(`${top.path}/TWO`)}`, {
      token: u.secret,
    });
    expect(byPath.status).toBe(200);
    expect(byPath.body).toMatchObject({ id: sub.id, kind: "group", full_path: `${top.path}/two` });
    const own = await stack.gw.get(`${api}/namespaces/${u.user.username}`, { token: u.secret });
    expect(own.body).toMatchObject({ kind: "user", path: u.user.username });
    const admin = await signedInUser(stack, ["api"], { admin: true });
    expect((await stack.gw.get(`${api}/namespaces/${sub.id}`, { token: admin.secret })).status).toBe(200);
    // Inherited membership is access too.
    const inheritor = await signedInUser(stack);
    await stack.db.query(
      "INSERT INTO groups.members (namespace_id, user_id, access_level) VALUES ($1, $2, 10)",
      [top.id, inheritor.user.id],
    );
    const inherited = await stack.gw.get(`${api}/namespaces/${sub.id}`, { token: inheritor.secret });
    expect(inherited.status).toBe(200);
    expect(inherited.body).not.toHaveProperty("members_count_with_descendants");
  });

  it("404s what is missing and what the caller has no access to, even a public group", async () => {
    const u = await userWithNamespace();
    const stranger = await userWithNamespace();
    const pub = await newGroup(u.secret, { path: unique("pub"), visibility: "public" });
    for (const id of [String(pub.id), pub.path, u.user.username, "999999999", "no%2Fsuch"])
      expectError(await stack.gw.get(`${api}/namespaces/${id}`, { token: stranger.secret }), 404, NOT_FOUND);
    expectError(await stack.gw.get(`${api}/namespaces/${pub.id}`), 401, UNAUTHORIZED);
  });
});
