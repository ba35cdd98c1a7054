/**
 * Custom attributes of users (GitLab's CustomAttributesEndpoints on /users/:id): administrators
 * only, with the same rules as groups' and projects'; `GET /users` filters by them and
 * `with_custom_attributes` shows them, for administrators alone.
 */
import {
  createAdmin,
  createToken,
  createUser,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type Stack,
} from "./support";

let stack: Stack;
let adminToken: string;
beforeAll(async () => {
  stack = await startStack();
  const admin = await createAdmin(stack);
  adminToken = (await createToken(stack, admin.id)).token;
});
afterAll(() => stack.stop());

const stored = async (userId: number) =>
  (
    await stack.db.query(
      "SELECT key, value FROM auth.user_custom_attributes WHERE user_id = $1 ORDER BY key",
      [userId],
    )
  ).rows;

const base = (userId: number) => `/api/v4/users/${userId}/custom_attributes`;

describe("as an administrator", () => {
  it("PUT creates and updates (200 both), GET lists and reads, DELETE answers 204", async () => {
    const user = await createUser(stack);
    const created = await stack.gw.put(`${base(user.id)}/team`, {
      token: adminToken,
      json: { value: "blue" },
    });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 200,
      body: { key: "team", value: "blue" },
    });
    expectJsonHeaders(created);
    const updated = await stack.gw.put(`${base(user.id)}/team`, {
      token: adminToken,
      form: { value: "red" },
    });
    expect(updated.body).toEqual({ key: "team", value: "red" });
    await stack.gw.put(`${base(user.id)}/floor`, { token: adminToken, json: { value: 3 } });
    const listed = await stack.gw.get(base(user.id), { token: adminToken });
    expect({ status: listed.status, body: listed.body }).toEqual({
      status: 200,
      body: [
        { key: "team", value: "red" },
        { key: "floor", value: "3" },
      ],
    });
    expect((await stack.gw.get(`${base(user.id)}/team`, { token: adminToken })).body).toEqual({
      key: "team",
      value: "red",
    });
    const removed = await stack.gw.delete(`${base(user.id)}/floor`, { token: adminToken });
    expect({ status: removed.status, text: removed.text }).toEqual({ status: 204, text: "" });
    expect(await stored(user.id)).toEqual([{ key: "team", value: "red" }]);
  });

  it("answers 404 Not found for a missing key and 404 User Not Found for a missing user", async () => {
    const user = await createUser(stack);
    expectError(await stack.gw.get(`${base(user.id)}/nope`, { token: adminToken }), 404, {
      message: "404 Not found",
    });
    expectError(await stack.gw.delete(`${base(user.id)}/nope`, { token: adminToken }), 404, {
      message: "404 Not found",
    });
    expectError(await stack.gw.get(base(999_999_999), { token: adminToken }), 404, {
      message: "404 User Not Found",
    });
    expectError(
      await stack.gw.put(`${base(999_999_999)}/k`, { token: adminToken, json: { value: "v" } }),
      404,
      { message: "404 User Not Found" },
    );
  });

  it("refuses bad values and ids with 400 and stores nothing", async () => {
    const user = await createUser(stack);
    const put = (json: unknown) => stack.gw.put(`${base(user.id)}/k`, { token: adminToken, json });
    expectError(await put({}), 400, { error: "value is missing" });
    expectError(await put({ value: "" }), 400, { message: { value: ["can't be blank"] } });
    expectError(await put({ value: "x".repeat(10_001) }), 400, {
      message: { value: ["is too long (maximum is 10000 characters)"] },
    });
    expect((await put({ value: "a\u0000b" })).status).toBe(400);
    expect((await put({ value: { nested: true } })).status).toBe(400);
    expectError(await stack.gw.get("/api/v4/users/abc/custom_attributes", { token: adminToken }), 400, {
      error: "id is invalid",
    });
    expect(await stored(user.id)).toEqual([]);
  });

  it("filters GET /users by every pair given and shows the attributes when asked", async () => {
    const tag = unique("tag");
    const [a, b] = [await createUser(stack), await createUser(stack)];
    for (const [user, level] of [
      [a, "senior"],
      [b, "junior"],
    ] as const) {
      await stack.gw.put(`${base(user.id)}/${tag}`, { token: adminToken, json: { value: level } });
      await stack.gw.put(`${base(user.id)}/office`, { token: adminToken, json: { value: "berlin" } });
    }
    const ids = async (query: string, token = adminToken) =>
      ((await stack.gw.get(`/api/v4/users?${query}`, { token })).body as { id: number }[]).map((u) => u.id);
    expect(await ids(`custom_attributes[${tag}]=senior`)).toEqual([a.id]);
    expect((await ids(`custom_attributes[${tag}]=senior&custom_attributes[office]=berlin`)).sort()).toEqual([
      a.id,
    ]);
    expect(await ids(`custom_attributes[${tag}]=nobody`)).toEqual([]);
    const shown = await stack.gw.get(
      `/api/v4/users?custom_attributes[${tag}]=junior&with_custom_attributes=true`,
      {
        token: adminToken,
      },
    );
    expect((shown.body as Record<string, unknown>[])[0]!.custom_attributes).toEqual([
      { key: tag, value: "junior" },
      { key: "office", value: "berlin" },
    ]);
    const one = await stack.gw.get(`/api/v4/users/${a.id}?with_custom_attributes=true`, {
      token: adminToken,
    });
    expect((one.body as Record<string, unknown>).custom_attributes).toEqual([
      { key: tag, value: "senior" },
      { key: "office", value: "berlin" },
    ]);
    const plain = await stack.gw.get(`/api/v4/users/${a.id}`, { token: adminToken });
    expect(plain.body).not.toHaveProperty("custom_attributes");

    // Anyone else: the filter and the attributes are ignored, as GitLab does.
    const other = await signedInUser(stack);
    expect((await ids(`custom_attributes[${tag}]=senior&per_page=100`, other.secret)).length).toBeGreaterThan(
      1,
    );
    const hidden = await stack.gw.get(`/api/v4/users/${a.id}?with_custom_attributes=true`, {
      token: other.secret,
    });
    expect(hidden.body).not.toHaveProperty("custom_attributes");
  });
});

describe("for everyone else", () => {
  it("is 403 for the user and strangers on every route and for anonymous GETs; anonymous writes are 401", async () => {
    const owner = await signedInUser(stack);
    await stack.gw.put(`${base(owner.user.id)}/secret`, { token: adminToken, json: { value: "s" } });
    const stranger = await signedInUser(stack);
    for (const token of [owner.secret, stranger.secret, undefined]) {
      expectError(await stack.gw.get(base(owner.user.id), { token }), 403, FORBIDDEN);
      expectError(await stack.gw.get(`${base(owner.user.id)}/secret`, { token }), 403, FORBIDDEN);
      expectError(await stack.gw.get(base(999_999_999), { token }), 403, FORBIDDEN);
    }
    for (const token of [owner.secret, stranger.secret]) {
      expectError(
        await stack.gw.put(`${base(owner.user.id)}/secret`, { token, json: { value: "x" } }),
        403,
        FORBIDDEN,
      );
      expectError(await stack.gw.delete(`${base(owner.user.id)}/secret`, { token }), 403, FORBIDDEN);
    }
    expectError(
      await stack.gw.put(`${base(owner.user.id)}/secret`, { json: { value: "x" } }),
      401,
      UNAUTHORIZED,
    );
    expectError(await stack.gw.delete(`${base(owner.user.id)}/secret`), 401, UNAUTHORIZED);
    expect(await stored(owner.user.id)).toEqual([{ key: "secret", value: "s" }]);
  });

  it("goes with its user", async () => {
    const user = await createUser(stack);
    await stack.gw.put(`${base(user.id)}/k`, { token: adminToken, json: { value: "v" } });
    expect((await stack.gw.delete(`/api/v4/users/${user.id}`, { token: adminToken })).status).toBe(204);
    expect(await stored(user.id)).toEqual([]);
  });
});
