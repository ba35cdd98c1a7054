/**
 * Bad input gets a clear 4xx and changes nothing (every case reads the data back): wrong types,
 * huge values, oversized bodies, malformed JSON, NUL bytes, and text that must pass through intact
 * (unicode, SQL metacharacters).
 */
import {
  countUsers,
  createUser,
  expectError,
  startStack,
  unique,
  userRow,
  type ApiUser,
  type Stack,
} from "./support";

let stack: Stack;
let victim: ApiUser;
let before: Record<string, unknown>;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
beforeEach(async () => {
  victim = await createUser(stack, { bio: "original bio" });
  before = (await userRow(stack, victim.id))!;
});
afterAll(() => stack.stop());

const put = (json: unknown) => stack.gw.put(`/api/v4/users/${victim.id}`, { token: stack.rootToken, json });
const unchanged = async () => expect(await userRow(stack, victim.id)).toEqual(before);

describe("wrong types", () => {
  test.each<[string, Record<string, unknown>, string]>([
    ["admin=maybe", { admin: "maybe" }, "admin is invalid"],
    ["a number for a boolean", { external: 2 }, "external is invalid"],
    ["an object for a string", { name: { first: "x" } }, "name is invalid"],
    ["an array for a string", { bio: ["a", "b"] }, "bio is invalid"],
    ["text for an integer", { projects_limit: "lots" }, "projects_limit is invalid"],
    ["a fraction for an integer", { projects_limit: 1.5 }, "projects_limit is invalid"],
    ["a huge integer", { projects_limit: "99999999999999999999" }, "projects_limit is invalid"],
    [
      "two bad values",
      { admin: "maybe", projects_limit: "x" },
      "admin is invalid, projects_limit is invalid",
    ],
    [
      "a 300-character username",
      { username: "u".repeat(300) },
      "username must be at the most 255 characters long",
    ],
    [
      "a 200-character password",
      { password: "p".repeat(200) },
      "password must be at the most 128 characters long",
    ],
  ])("%s is 400 and changes nothing", async (_what, json, error) => {
    expectError(await put(json), 400, { error });
    // Mixed with valid attributes, nothing of the request is applied either.
    expectError(await put({ ...json, job_title: "Should Not Stick" }), 400, { error });
    await unchanged();
  });

  test("admin=maybe in the query string is refused the same way", async () => {
    const res = await stack.gw.put(`/api/v4/users/${victim.id}?admin=maybe&name=x`, {
      token: stack.rootToken,
    });
    expectError(res, 400, { error: "admin is invalid" });
    await unchanged();
  });

  test.each([
    ["abc", "PUT"],
    ["99999999999999999999", "PUT"],
    ["abc", "DELETE"],
    ["1;DROP TABLE users", "DELETE"],
    ["abc", "POST /block"],
  ])("id=%s on %s is 400 id is invalid", async (id, what) => {
    const [method, suffix = ""] = what.split(" ");
    const path = `/api/v4/users/${encodeURIComponent(id)}${suffix}`;
    expectError(await stack.gw.request(method!, path, { token: stack.rootToken, json: { name: "x" } }), 400, {
      error: "id is invalid",
    });
    await unchanged();
  });

  test("user_id=abc on token creation is 400, and no token is made", async () => {
    const res = await stack.gw.post("/api/v4/users/abc/personal_access_tokens", {
      token: stack.rootToken,
      json: { name: "t", scopes: ["api"] },
    });
    expectError(res, 400, { error: "user_id is invalid" });
  });
});

describe("oversized and malformed bodies", () => {
  test("a 2 MB JSON body is 413 and creates nothing", async () => {
    const username = unique("big_");
    const res = await stack.gw.post("/api/v4/users", {
      token: stack.rootToken,
      json: {
        username,
        email: `${username}@example.com`,
        name: "Big",
        password: "long-enough-pw",
        bio: "b".repeat(2_000_000),
      },
    });
    expectError(res, 413, { error: "413 Request Entity Too Large" });
    expect(await countUsers(stack, "username = $1", [username])).toBe(0);
  });

  test("a 2 MB form body is 413 too", async () => {
    const res = await stack.gw.put(`/api/v4/users/${victim.id}`, {
      token: stack.rootToken,
      form: { name: "n".repeat(2_000_000) },
    });
    expectError(res, 413, { error: "413 Request Entity Too Large" });
    await unchanged();
  });

  test("malformed JSON is 400", async () => {
    const res = await stack.gw.put(`/api/v4/users/${victim.id}`, {
      token: stack.rootToken,
      raw: '{"name": "x",',
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 400, { error: "body is not valid JSON or form data" });
    await unchanged();
  });
});

describe("text that must pass through intact", () => {
  test("unicode names, bios and locations are stored and returned as sent", async () => {
    const values = { name: "Zoë 山田 🚀", bio: "Ünïcødé — 日本語 — emoji 👩‍💻 — RTL שלום", location: "Zürich" };
    const res = await put(values);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(values);
    expect(await userRow(stack, victim.id)).toMatchObject(values);
    expect((await stack.gw.get(`/api/v4/users/${victim.id}`)).body).toMatchObject(values);
    const found = await stack.gw.get(`/api/v4/users?search=${encodeURIComponent("山田 🚀")}`);
    expect((found.body as { id: number }[]).map((u) => u.id)).toContain(victim.id);
  });

  test("a unicode username is refused by GitLab's path rule", async () => {
    const res = await stack.gw.post("/api/v4/users", {
      token: stack.rootToken,
      json: { username: "zoë", email: `${unique()}@example.com`, name: "Zoë", password: "long-enough-pw" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: { username: [expect.stringContaining("can contain only letters")] },
    });
    expect(await countUsers(stack, "username = $1", ["zoë"])).toBe(0);
  });

  test("SQL metacharacters in attributes are stored as text", async () => {
    const values = { name: "Robert'); DROP TABLE users; --", bio: "100% _real_ \\ back\\slash $1 ::text" };
    expect((await put(values)).status).toBe(200);
    expect(await userRow(stack, victim.id)).toMatchObject(values);
    expect(await countUsers(stack, "true", [])).toBeGreaterThan(1);
  });

  test("SQL and LIKE metacharacters in search match only literally", async () => {
    const marker = unique("lk");
    const literal = await createUser(stack, { name: `${marker} 100%_x` });
    // No '%' or '_' anywhere in the decoy: a wildcard that is not escaped would match it.
    const decoyName = unique("lkdecoy");
    const decoy = await createUser(stack, {
      username: decoyName,
      email: `${decoyName}@example.com`,
      name: `${marker} 100abx`,
    });
    const search = async (q: string) => {
      const res = await stack.gw.get(`/api/v4/users?search=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      return (res.body as { id: number }[]).map((u) => u.id);
    };
    expect(await search(`${marker} 100%_`)).toEqual([literal.id]);
    expect(await search("%")).not.toContain(decoy.id);
    expect(await search("_")).not.toContain(decoy.id);
    expect(await search("' OR '1'='1")).toEqual([]);
    expect(await search("'; DROP TABLE users; --")).toEqual([]);
    expect(await search("\\")).toEqual(expect.any(Array));
    const byName = await stack.gw.get(`/api/v4/users?username=${encodeURIComponent("x' OR 1=1 --")}`);
    expect(byName.body).toEqual([]);
    expect(await userRow(stack, decoy.id)).toBeDefined();
  });

  test("a NUL byte in a query parameter is a 400, not a database error", async () => {
    for (const query of ["search=a%00b", "username=%00"]) {
      expectError(await stack.gw.get(`/api/v4/users?${query}`), 400, {
        error: `${query.split("=")[0]} is invalid`,
      });
    }
    expectError(
      await stack.gw.get("/api/v4/personal_access_tokens?search=%00", { token: stack.rootToken }),
      400,
      {
        error: "search is invalid",
      },
    );
  });

  test("a NUL byte in an attribute is a 400 and changes nothing", async () => {
    expectError(await put({ bio: "a\u0000b" }), 400, { error: "bio is invalid" });
    await unchanged();
  });
});
