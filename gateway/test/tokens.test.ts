/**
 * Personal access tokens: POST /users/:user_id/personal_access_tokens, GET /personal_access_tokens,
 * GET and DELETE /personal_access_tokens/self and /:id.
 */
import {
  createToken,
  waitFor,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  ISO_TIME,
  REVOKED,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type ApiToken,
  type Reply,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
let plain: SignedIn;
beforeAll(async () => {
  stack = await startStack();
  plain = await signedInUser(stack);
}, 30_000);
afterAll(() => stack.stop());

const date = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
/** GitLab's PersonalAccessToken entity. */
const entity = (t: ApiToken, extra: Record<string, unknown> = {}) => ({
  id: t.id,
  name: t.name,
  revoked: false,
  created_at: ISO_TIME,
  description: null,
  scopes: t.scopes,
  user_id: t.user_id,
  last_used_at: null,
  active: true,
  expires_at: date(365),
  ...extra,
});
const ids = (res: Reply) => (res.body as { id: number }[]).map((t) => t.id);

/** Uses a token once and waits until its use is recorded (the auth service records it in the background). */
async function use(secret: string, tokenId: number) {
  expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
  await waitFor("last_used_at", async () => {
    const { rows } = await stack.db.query(
      "SELECT last_used_at FROM auth.personal_access_tokens WHERE id = $1",
      [tokenId],
    );
    return rows[0]?.last_used_at ?? undefined;
  });
}

describe("POST /api/v4/users/:user_id/personal_access_tokens", () => {
  test("an admin creates one: 201 with the secret, shown this once", async () => {
    const { user } = await signedInUser(stack);
    const res = await stack.gw.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
      token: stack.rootToken,
      json: { name: "ci", scopes: ["read_api", "read_user"], expires_at: date(30), description: "for CI" },
    });
    expect(res.status).toBe(201);
    expectJsonHeaders(res);
    const created = res.body as ApiToken;
    expect(created).toEqual({
      ...entity(created, { expires_at: date(30), description: "for CI" }),
      name: "ci",
      scopes: ["read_api", "read_user"],
      user_id: user.id,
      token: expect.stringMatching(/^glpat-[A-Za-z0-9_-]{20,}$/),
    });
    // Never shown again, and never stored in clear.
    for (const path of [
      `/api/v4/personal_access_tokens/${created.id}`,
      `/api/v4/personal_access_tokens?user_id=${user.id}`,
    ]) {
      const again = await stack.gw.get(path, { token: stack.rootToken });
      expect(again.text).not.toContain(created.token);
      expect(again.text).not.toContain('"token"');
    }
    const { rows } = await stack.db.query("SELECT * FROM auth.personal_access_tokens WHERE id = $1", [
      created.id,
    ]);
    expect(JSON.stringify(rows)).not.toContain(created.token.slice(6));
    expect((await stack.gw.get("/api/v4/user", { token: created.token })).body).toMatchObject({
      id: user.id,
    });
  });

  test("anonymous 401, a user 403 even for themself; no token is made", async () => {
    const path = `/api/v4/users/${plain.user.id}/personal_access_tokens`;
    const json = { name: "nope", scopes: ["api"] };
    expectError(await stack.gw.post(path, { json }), 401, UNAUTHORIZED);
    expectError(await stack.gw.post(path, { token: plain.secret, json }), 403, FORBIDDEN);
    const { rows } = await stack.db.query(
      "SELECT 1 FROM auth.personal_access_tokens WHERE name = 'nope' AND user_id = $1",
      [plain.user.id],
    );
    expect(rows).toEqual([]);
  });

  test("bad parameters are 400 and make nothing", async () => {
    const { user } = await signedInUser(stack);
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, { error: "name is missing, scopes is missing" }],
      [{ name: "t", scopes: ["api", "everything"] }, { error: "scopes does not have a valid value" }],
      [{ name: "t", scopes: [] }, { error: "scopes is missing" }],
      [{ name: "t", scopes: ["api"], expires_at: "2025-02-30" }, { error: "expires_at is invalid" }],
      [{ name: "t", scopes: ["api"], expires_at: "tomorrow" }, { error: "expires_at is invalid" }],
      [
        { name: "t", scopes: ["api"], expires_at: date(-1) },
        { message: { expires_at: ["must be in the future"] } },
      ],
      [
        { name: "t", scopes: ["api"], expires_at: date(400) },
        { message: { expires_at: ["must expire within 365 days"] } },
      ],
      [{ name: "t", scopes: ["sudo"] }, { message: { scopes: ["can only contain available scopes"] } }],
      [{ name: "x".repeat(300), scopes: ["api"] }, { error: "name must be at the most 255 characters long" }],
    ];
    for (const [json, expected] of cases) {
      const res = await stack.gw.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
        token: stack.rootToken,
        json,
      });
      expect([json, res.status, res.body]).toEqual([json, 400, expected]);
    }
    expectError(
      await stack.gw.post("/api/v4/users/999999999/personal_access_tokens", {
        token: stack.rootToken,
        json: { name: "t", scopes: ["api"] },
      }),
      404,
      { message: "404 User Not Found" },
    );
    const { rows } = await stack.db.query("SELECT 1 FROM auth.personal_access_tokens WHERE user_id = $1", [
      user.id,
    ]);
    expect(rows.length).toBe(1); // only the one signedInUser made
  });

  test("scopes in the comma form and as scopes[] are accepted", async () => {
    const res = await stack.gw.post(
      `/api/v4/users/${plain.user.id}/personal_access_tokens?scopes[]=read_api&scopes[]=read_user`,
      {
        token: stack.rootToken,
        form: { name: "form" },
      },
    );
    expect(res.status).toBe(201);
    expect((res.body as ApiToken).scopes).toEqual(["read_api", "read_user"]);
    const comma = await stack.gw.post(`/api/v4/users/${plain.user.id}/personal_access_tokens`, {
      token: stack.rootToken,
      form: { name: "comma", scopes: "api,read_user" },
    });
    expect((comma.body as ApiToken).scopes).toEqual(["api", "read_user"]);
  });
});

describe("GET /api/v4/personal_access_tokens", () => {
  test("a user sees only their own tokens; an admin sees everybody's and may filter by user", async () => {
    const owner = await signedInUser(stack);
    const second = await createToken(stack, owner.user.id, ["read_api"]);
    await use(owner.secret, owner.token.id);
    const mine = await stack.gw.get("/api/v4/personal_access_tokens", { token: owner.secret });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([entity(owner.token, { last_used_at: ISO_TIME }), entity(second)]);
    expect(mine.headers.get("x-total")).toBe("2");
    const filtered = await stack.gw.get(`/api/v4/personal_access_tokens?user_id=${owner.user.id}`, {
      token: stack.rootToken,
    });
    expect(ids(filtered)).toEqual([owner.token.id, second.id]);
    const everybody = await stack.gw.get("/api/v4/personal_access_tokens?per_page=100", {
      token: stack.rootToken,
    });
    expect(Number(everybody.headers.get("x-total"))).toBeGreaterThan(2);
    expect(new Set((everybody.body as ApiToken[]).map((t) => t.user_id)).size).toBeGreaterThan(1);
  });

  test("a user filtering on somebody else's user_id gets 401; on their own, their tokens", async () => {
    expectError(
      await stack.gw.get(`/api/v4/personal_access_tokens?user_id=1`, { token: plain.secret }),
      401,
      UNAUTHORIZED,
    );
    const own = await stack.gw.get(`/api/v4/personal_access_tokens?user_id=${plain.user.id}`, {
      token: plain.secret,
    });
    expect(own.status).toBe(200);
  });

  test("state and revoked filter; pagination headers are set", async () => {
    const owner = await signedInUser(stack);
    const gone = await createToken(stack, owner.user.id);
    await stack.gw.delete(`/api/v4/personal_access_tokens/${gone.id}`, { token: stack.rootToken });
    const get = (q: string) => stack.gw.get(`/api/v4/personal_access_tokens?${q}`, { token: owner.secret });
    expect(ids(await get("state=active"))).toEqual([owner.token.id]);
    expect(ids(await get("state=inactive"))).toEqual([gone.id]);
    expect(ids(await get("revoked=true"))).toEqual([gone.id]);
    const page = await get("per_page=1&page=2");
    expect(ids(page)).toEqual([gone.id]);
    expect(page.headers.get("x-total-pages")).toBe("2");
    expect(page.headers.get("link")).toContain(
      "https://canopy.example.com/api/v4/personal_access_tokens?page=1&per_page=1",
    );
    expectError(await get("state=gone"), 400, { error: "state does not have a valid value" });
    expectError(await get("user_id=abc"), 400, { error: "user_id is invalid" });
  });

  test("anonymous is 401", async () => {
    expectError(await stack.gw.get("/api/v4/personal_access_tokens"), 401, UNAUTHORIZED);
  });
});

describe("GET /api/v4/personal_access_tokens/self and /:id", () => {
  test("self describes the token the request was made with", async () => {
    await use(plain.secret, plain.token.id);
    const res = await stack.gw.get("/api/v4/personal_access_tokens/self", { token: plain.secret });
    expect(res.body).toEqual(entity(plain.token, { last_used_at: ISO_TIME }));
  });

  test("by id: the owner and admins read it; others and missing ids are 401; admins get 404", async () => {
    const owner = await signedInUser(stack);
    const path = `/api/v4/personal_access_tokens/${owner.token.id}`;
    expect((await stack.gw.get(path, { token: owner.secret })).body).toMatchObject({ id: owner.token.id });
    expect((await stack.gw.get(path, { token: stack.rootToken })).body).toMatchObject({ id: owner.token.id });
    expectError(await stack.gw.get(path, { token: plain.secret }), 401, UNAUTHORIZED);
    expectError(await stack.gw.get(path), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.get("/api/v4/personal_access_tokens/999999999", { token: plain.secret }),
      401,
      UNAUTHORIZED,
    );
    expectError(
      await stack.gw.get("/api/v4/personal_access_tokens/999999999", { token: stack.rootToken }),
      404,
      {
        message: "404 Not Found",
      },
    );
    expectError(await stack.gw.get("/api/v4/personal_access_tokens/abc", { token: plain.secret }), 400, {
      error: "id is invalid",
    });
  });
});

describe("DELETE /api/v4/personal_access_tokens/self and /:id", () => {
  test("self revokes the token in use: 204, then it is refused", async () => {
    const { token, secret } = await signedInUser(stack);
    const res = await stack.gw.delete("/api/v4/personal_access_tokens/self", { token: secret });
    expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: "" });
    expectError(await stack.gw.get("/api/v4/user", { token: secret }), 401, REVOKED);
    const { rows } = await stack.db.query("SELECT revoked FROM auth.personal_access_tokens WHERE id = $1", [
      token.id,
    ]);
    expect(rows).toEqual([{ revoked: true }]);
  });

  test("by id: the owner and admins revoke; another user gets 400 and nothing changes", async () => {
    const owner = await signedInUser(stack);
    const spare = await createToken(stack, owner.user.id);
    expectError(
      await stack.gw.delete(`/api/v4/personal_access_tokens/${spare.id}`, { token: plain.secret }),
      400,
      {
        message: "400 Bad request",
      },
    );
    expect((await stack.gw.get("/api/v4/user", { token: spare.token })).status).toBe(200);
    expect(
      (await stack.gw.delete(`/api/v4/personal_access_tokens/${spare.id}`, { token: owner.secret })).status,
    ).toBe(204);
    expectError(await stack.gw.get("/api/v4/user", { token: spare.token }), 401, REVOKED);
    expect(
      (await stack.gw.delete(`/api/v4/personal_access_tokens/${owner.token.id}`, { token: stack.rootToken }))
        .status,
    ).toBe(204);
    expectError(await stack.gw.get("/api/v4/user", { token: owner.secret }), 401, REVOKED);
  });

  test("anonymous 401; a missing id 404; a malformed id 400", async () => {
    expectError(await stack.gw.delete("/api/v4/personal_access_tokens/1"), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.delete("/api/v4/personal_access_tokens/999999999", { token: stack.rootToken }),
      404,
      {
        message: "404 Not Found",
      },
    );
    expectError(
      await stack.gw.delete("/api/v4/personal_access_tokens/abc", { token: stack.rootToken }),
      400,
      {
        error: "id is invalid",
      },
    );
  });
});
