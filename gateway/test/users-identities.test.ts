/**
 * Identities through the Users API as GitLab has them (lib/api/users.rb): provider + extern_uid on
 * POST and PUT /users, `identities` in the admin view, GET /users?extern_uid=&provider=,
 * DELETE /users/:id/identities/:provider; who may do each, and what bad input gets.
 */
import {
  createUser,
  expectError,
  FORBIDDEN,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type Stack,
} from "./support";

let stack: Stack;
let userToken: string;
beforeAll(async () => {
  stack = await startStack();
  userToken = (await signedInUser(stack)).secret;
}, 30_000);
afterAll(() => stack.stop());

const dnOf = (uid: string) => `uid=${uid},ou=people,dc=example,dc=org`;

test("POST /users with provider and extern_uid gives the user that identity, the DN normalized", async () => {
  const uid = unique("id_");
  const user = await createUser(stack, {
    provider: "ldapmain",
    extern_uid: `UID=${uid}, OU=People,DC=Example,DC=Org`,
  });
  expect(user.identities).toEqual([{ provider: "ldapmain", extern_uid: dnOf(uid), saml_provider_id: null }]);
  const shown = await stack.gw.get(`/api/v4/users/${user.id}`, { token: stack.rootToken });
  expect((shown.body as { identities: unknown[] }).identities).toHaveLength(1);
});

test("PUT /users/:id adds an identity, then changes its extern_uid for that provider", async () => {
  const user = await createUser(stack);
  const put = (json: Record<string, string>) =>
    stack.gw.put(`/api/v4/users/${user.id}`, { token: stack.rootToken, json });
  const first = await put({ provider: "github", extern_uid: "12345" });
  expect(first.status).toBe(200);
  await put({ provider: "ldapmain", extern_uid: dnOf("one") });
  const changed = await put({ provider: "ldapmain", extern_uid: dnOf("two") });
  expect((changed.body as { identities: unknown }).identities).toEqual([
    { provider: "github", extern_uid: "12345", saml_provider_id: null },
    { provider: "ldapmain", extern_uid: dnOf("two"), saml_provider_id: null },
  ]);
});

test("an extern_uid another user holds for that provider is refused", async () => {
  const uid = unique("taken_");
  await createUser(stack, { provider: "ldapmain", extern_uid: dnOf(uid) });
  const other = await createUser(stack);
  const res = await stack.gw.put(`/api/v4/users/${other.id}`, {
    token: stack.rootToken,
    json: { provider: "ldapmain", extern_uid: dnOf(uid).toUpperCase() },
  });
  expectError(res, 400, { message: { "identities.extern_uid": ["has already been taken"] } });
});

test.each([
  [{ provider: "ldapmain" }, { "identities.extern_uid": ["can't be blank"] }],
  [{ extern_uid: "uid=x" }, { "identities.provider": ["can't be blank"] }],
  [{ provider: " ", extern_uid: "uid=x" }, { "identities.provider": ["can't be blank"] }],
])("half an identity is a validation error: %j", async (identity, message) => {
  const user = await createUser(stack);
  const res = await stack.gw.put(`/api/v4/users/${user.id}`, { token: stack.rootToken, json: identity });
  expectError(res, 400, { message });
});

describe("GET /users?extern_uid=&provider=", () => {
  test("an administrator finds the user, whatever the DN's spelling", async () => {
    const uid = unique("find_");
    const user = await createUser(stack, { provider: "ldapmain", extern_uid: dnOf(uid) });
    const query = `/api/v4/users?provider=ldapmain&extern_uid=${encodeURIComponent(`UID=${uid},OU=people,dc=example,dc=org`)}`;
    const res = await stack.gw.get(query, { token: stack.rootToken });
    expect(res.status).toBe(200);
    expect((res.body as { id: number }[]).map((u) => u.id)).toEqual([user.id]);
    const none = await stack.gw.get("/api/v4/users?provider=ldapmain&extern_uid=uid%3Dnobody", {
      token: stack.rootToken,
    });
    expect(none.body).toEqual([]);
  });

  test("anonymous 401, a non-admin 403", async () => {
    const query = "/api/v4/users?provider=ldapmain&extern_uid=uid%3Dx";
    expectError(await stack.gw.get(query), 401, UNAUTHORIZED);
    expectError(await stack.gw.get(query, { token: userToken }), 403, FORBIDDEN);
  });

  test("one without the other is Grape's all_or_none_of error", async () => {
    for (const query of ["provider=ldapmain", "extern_uid=uid%3Dx"])
      expectError(await stack.gw.get(`/api/v4/users?${query}`, { token: stack.rootToken }), 400, {
        error: "extern_uid, provider provide all or none of parameters",
      });
  });
});

describe("identities are for administrators and the user themselves", () => {
  test("others see none; the user sees their own on GET /user", async () => {
    const owner = await signedInUser(stack, ["api"]);
    await stack.gw.put(`/api/v4/users/${owner.user.id}`, {
      token: stack.rootToken,
      json: { provider: "ldapmain", extern_uid: dnOf(owner.user.username) },
    });
    const byOther = await stack.gw.get(`/api/v4/users/${owner.user.id}`, { token: userToken });
    expect(byOther.body).not.toHaveProperty("identities");
    const own = await stack.gw.get("/api/v4/user", { token: owner.secret });
    expect((own.body as { identities: unknown[] }).identities).toEqual([
      { provider: "ldapmain", extern_uid: dnOf(owner.user.username.toLowerCase()), saml_provider_id: null },
    ]);
  });
});

describe("DELETE /users/:id/identities/:provider", () => {
  test("an administrator removes it (204); then it is 404 Identity", async () => {
    const user = await createUser(stack, { provider: "ldapmain", extern_uid: dnOf(unique("del_")) });
    const path = `/api/v4/users/${user.id}/identities/ldapmain`;
    const res = await stack.gw.delete(path, { token: stack.rootToken });
    expect(res.status).toBe(204);
    const shown = await stack.gw.get(`/api/v4/users/${user.id}`, { token: stack.rootToken });
    expect((shown.body as { identities: unknown[] }).identities).toEqual([]);
    expectError(await stack.gw.delete(path, { token: stack.rootToken }), 404, {
      message: "404 Identity Not Found",
    });
  });

  test("an unknown user is 404 User; anonymous 401; a non-admin 403", async () => {
    expectError(
      await stack.gw.delete("/api/v4/users/999999999/identities/ldapmain", { token: stack.rootToken }),
      404,
      {
        message: "404 User Not Found",
      },
    );
    const user = await createUser(stack, { provider: "ldapmain", extern_uid: dnOf(unique("perm_")) });
    const path = `/api/v4/users/${user.id}/identities/ldapmain`;
    expectError(await stack.gw.delete(path), 401, UNAUTHORIZED);
    expectError(await stack.gw.delete(path, { token: userToken }), 403, FORBIDDEN);
    const { rows } = await stack.db.query("SELECT 1 FROM auth.identities WHERE user_id = $1", [user.id]);
    expect(rows).toHaveLength(1);
  });

  test("POST and PUT with an identity are for administrators too", async () => {
    const user = await createUser(stack);
    const json = { provider: "ldapmain", extern_uid: dnOf(unique("x_")) };
    expectError(await stack.gw.put(`/api/v4/users/${user.id}`, { json }), 401, UNAUTHORIZED);
    expectError(await stack.gw.put(`/api/v4/users/${user.id}`, { token: userToken, json }), 403, FORBIDDEN);
  });
});
