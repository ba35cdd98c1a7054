/** GET /search (GitLab lib/api/search.rb) and GET /users?search= ordering. */
import {
  createUser,
  EXTERNAL_URL,
  expectError,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

const basic = (u: { id: number; username: string; name: string }) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  state: "active",
  locked: false,
  avatar_url: null,
  web_url: `${EXTERNAL_URL}/${u.username}`,
});

describe("GET /search?scope=users", () => {
  it("finds users by partial username or name, exact matches first, then by name, as UserBasic", async () => {
    const me = await signedInUser(stack);
    const word = unique("srch").toLowerCase();
    const b = await createUser(stack, { name: `Bravo ${word}` });
    const a = await createUser(stack, { name: `Alpha ${word}` });
    const exact = await createUser(stack, { name: word });
    const res = await stack.gw.get(`/api/v4/search?scope=users&search=${word}`, { token: me.secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([basic(exact), basic(a), basic(b)]);
    expect(res.headers.get("x-total")).toBe("3");
    // Page 2 of one per page is the next by that order.
    const page = await stack.gw.get(`/api/v4/search?scope=users&search=${word}&per_page=1&page=2`, {
      token: me.secret,
    });
    expect(page.body).toEqual([basic(a)]);
    // GET /users?search= answers others in the same order.
    const list = await stack.gw.get(`/api/v4/users?search=${word}`, { token: me.secret });
    expect(list.body).toEqual([basic(exact), basic(a), basic(b)]);
  });

  it("never matches a private email for non-admins, and treats LIKE wildcards, quotes and unicode as text", async () => {
    const me = await signedInUser(stack);
    const hidden = await createUser(stack, { name: "Ünïcødé Nàme" });
    const byEmail = await stack.gw.get(
      `/api/v4/search?scope=users&search=${encodeURIComponent(hidden.email)}`,
      {
        token: me.secret,
      },
    );
    expect(byEmail.body).toEqual([]);
    const unicode = await stack.gw.get(`/api/v4/search?scope=users&search=${encodeURIComponent("Ünïcødé")}`, {
      token: me.secret,
    });
    expect(unicode.body).toEqual([basic(hidden)]);
    // Other files' users share the database (some have "%" in their names): every user found must
    // hold the text itself, and those without it (this file's) are never found by a wildcard.
    for (const q of ["%", "_%_", "' OR 1=1 --", "\\", '"x"']) {
      const res = await stack.gw.get(`/api/v4/search?scope=users&search=${encodeURIComponent(q)}`, {
        token: me.secret,
      });
      expect(res.status).toBe(200);
      const found = res.body as { id: number; username: string; name: string }[];
      const holding = (u: { username: string; name: string }) =>
        `${u.username} ${u.name}`.toLowerCase().includes(q.toLowerCase());
      expect({ q, without: found.filter((u) => !holding(u)) }).toEqual({ q, without: [] });
      expect(found.map((u) => u.id)).not.toContain(hidden.id);
      expect(found.map((u) => u.id)).not.toContain(me.user.id);
    }
  });

  it("answers GitLab's errors: missing search or scope, an unknown scope, advanced-search scopes, anonymous", async () => {
    const me = await signedInUser(stack);
    const get = (q: string, token: string | undefined = me.secret) =>
      stack.gw.get(`/api/v4/search${q}`, token ? { token } : {});
    expectError(await get("?scope=users"), 400, { error: "search is missing" });
    expectError(await get("?search=x"), 400, { error: "scope is missing" });
    expectError(await get("?search=x&scope=groupz"), 400, { error: "scope does not have a valid value" });
    expectError(await get("?search=x&scope=blobs"), 400, {
      message: { error: "Scope supported only with advanced search or exact code search" },
    });
    expectError(await get("?search=x&scope=commits"), 400, {
      message: { error: "Scope supported only with advanced search" },
    });
    expectError(await get("?search=x&scope=users", ""), 401, UNAUTHORIZED);
  });

  it("answers an empty list for what Canopy does not host (issues, merge requests, milestones, snippets)", async () => {
    const me = await signedInUser(stack);
    for (const scope of ["issues", "merge_requests", "milestones", "snippet_titles"]) {
      const res = await stack.gw.get(`/api/v4/search?scope=${scope}&search=anything`, { token: me.secret });
      expect({ scope, status: res.status, body: res.body, total: res.headers.get("x-total") }).toEqual({
        scope,
        status: 200,
        body: [],
        total: "0",
      });
    }
  });

  it("finds projects the caller may see, and only those", async () => {
    const owner = await signedInUser(stack);
    const stranger = await signedInUser(stack);
    const path = unique("sp_");
    const made = await stack.gw.post("/api/v4/projects", {
      token: owner.secret,
      json: { name: path, path, visibility: "private" },
    });
    expect(made.status).toBe(201);
    const mine = await stack.gw.get(`/api/v4/search?scope=projects&search=${path}`, { token: owner.secret });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([expect.objectContaining({ id: (made.body as { id: number }).id, path })]);
    const theirs = await stack.gw.get(`/api/v4/search?scope=projects&search=${path}`, {
      token: stranger.secret,
    });
    expect(theirs.body).toEqual([]);
  });
});
