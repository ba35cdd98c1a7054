/**
 * Token scopes (api, read_api only for GET, read_user, a scope the API does not know) and sudo.
 * A refused token is told every scope registered for the endpoint, its GitLab class's first:
 * "api read_api" on a write, "read_user api read_api" anywhere under /users (api-scope-model.ts).
 */
import {
  createUser,
  expectError,
  FORBIDDEN,
  insufficientScope,
  REVOKED,
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

describe("scopes", () => {
  test("api reaches reads and writes", async () => {
    const { user, secret } = await signedInUser(stack, ["api"]);
    expect((await stack.gw.get("/api/v4/user", { token: secret })).body).toMatchObject({ id: user.id });
    expect((await stack.gw.get("/api/v4/personal_access_tokens", { token: secret })).status).toBe(200);
    // Past the scope check, the auth service decides: a non-admin may not create users.
    expectError(await stack.gw.post("/api/v4/users", { token: secret, json: newUserBody() }), 403, FORBIDDEN);
    expect((await stack.gw.delete("/api/v4/personal_access_tokens/self", { token: secret })).status).toBe(
      204,
    );
  });

  test("read_api reads, but every write is 403 insufficient_scope naming every scope registered", async () => {
    const { user, secret } = await signedInUser(stack, ["read_api"]);
    for (const path of [
      "/api/v4/user",
      "/api/v4/users",
      `/api/v4/users/${user.id}`,
      "/api/v4/personal_access_tokens",
      "/api/v4/version",
    ]) {
      expect([path, (await stack.gw.get(path, { token: secret })).status]).toEqual([path, 200]);
    }
    const head = await stack.gw.request("HEAD", "/api/v4/user", { token: secret });
    expect(head.status).toBe(200);
    const body = newUserBody();
    for (const [method, path, scope] of [
      ["POST", "/api/v4/users", "read_user api read_api"],
      ["PUT", `/api/v4/users/${user.id}`, "read_user api read_api"],
      ["DELETE", `/api/v4/users/${user.id}`, "read_user api read_api"],
      ["POST", `/api/v4/users/${user.id}/block`, "read_user api read_api"],
      ["POST", `/api/v4/users/${user.id}/personal_access_tokens`, "read_user api read_api"],
      ["DELETE", `/api/v4/personal_access_tokens/${user.id}`, "api read_api"],
      ["POST", "/api/v4/groups", "api read_api"],
    ] as const) {
      const res = await stack.gw.request(method, path, { token: secret, json: body });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, insufficientScope(scope)]);
    }
    // Nothing was written: the user exists, is active, and the token still works.
    const me = await stack.gw.get("/api/v4/user", { token: secret });
    expect(me.body).toMatchObject({ id: user.id, state: "active" });
    expect(await countUsersNamed(body.username)).toBe(0);
  });

  test("read_user reads users and its own token, but no other tokens, and writes nothing", async () => {
    const { user, token, secret } = await signedInUser(stack, ["read_user"]);
    for (const path of ["/api/v4/user", "/api/v4/users", `/api/v4/users/${user.id}`, "/api/v4/version"]) {
      expect([path, (await stack.gw.get(path, { token: secret })).status]).toEqual([path, 200]);
    }
    expectError(
      await stack.gw.get("/api/v4/personal_access_tokens", { token: secret }),
      403,
      insufficientScope("api read_api"),
    );
    const self = await stack.gw.get("/api/v4/personal_access_tokens/self", { token: secret });
    expect(self.body).toMatchObject({ id: token.id, scopes: ["read_user"] });
    const res = await stack.gw.put(`/api/v4/users/${user.id}`, { token: secret, json: { name: "changed" } });
    expectError(res, 403, insufficientScope("read_user api read_api"));
  });

  test("a token with only read_repository is refused everywhere, naming the scopes that would do", async () => {
    const { user, secret } = await signedInUser(stack, ["read_repository"]);
    const cases: [string, string, string][] = [
      ["GET", "/api/v4/user", "read_user api read_api"],
      ["GET", "/api/v4/users", "read_user api read_api"],
      ["GET", `/api/v4/users/${user.id}`, "read_user api read_api"],
      ["GET", "/api/v4/version", "read_user api read_api"],
      ["GET", "/api/v4/personal_access_tokens", "api read_api"],
      ["GET", "/api/v4/groups", "api read_api"],
      ["POST", "/api/v4/users", "read_user api read_api"],
      ["PUT", `/api/v4/users/${user.id}`, "read_user api read_api"],
      ["POST", "/api/v4/groups", "api read_api"],
    ];
    for (const [method, path, scope] of cases) {
      const res = await stack.gw.request(method, path, { token: secret });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, insufficientScope(scope)]);
    }
    // The token itself is untouched.
    const { rows } = await stack.db.query(
      "SELECT revoked FROM auth.personal_access_tokens WHERE user_id = $1",
      [user.id],
    );
    expect(rows).toEqual([{ revoked: false }]);
  });

  test("any personal access token sees and revokes itself, whatever its scopes (GitLab's SelfInformation)", async () => {
    for (const scopes of [["read_repository"], ["write_repository"], ["read_user"], ["read_api"]]) {
      const { token, secret } = await signedInUser(stack, scopes);
      const self = await stack.gw.get("/api/v4/personal_access_tokens/self", { token: secret });
      expect([scopes, self.status, self.body]).toEqual([
        scopes,
        200,
        expect.objectContaining({ id: token.id }),
      ]);
      const revoked = await stack.gw.delete("/api/v4/personal_access_tokens/self", { token: secret });
      expect([scopes, revoked.status]).toEqual([scopes, 204]);
      expectError(await stack.gw.get("/api/v4/personal_access_tokens/self", { token: secret }), 401, REVOKED);
    }
  });
});

describe("sudo", () => {
  let admin: { secret: string; id: number };
  let adminWithoutSudo: string;
  beforeAll(async () => {
    const a = await signedInUser(stack, ["api", "sudo"], { admin: true });
    admin = { secret: a.secret, id: a.user.id };
    adminWithoutSudo = (await signedInUser(stack, ["api"], { admin: true })).secret;
  });

  test("an admin with the sudo scope acts as another user, by id and by username", async () => {
    const target = await createUser(stack);
    for (const headers of [
      { Sudo: String(target.id) },
      { Sudo: target.username },
      { Sudo: target.username.toUpperCase() },
    ]) {
      const res = await stack.gw.get("/api/v4/user", { token: admin.secret, headers });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: target.id, username: target.username, email: target.email });
      expect(res.body).not.toHaveProperty("is_admin"); // the target is no admin: UserPublic
    }
    const byParam = await stack.gw.get(`/api/v4/user?sudo=${target.username}`, { token: admin.secret });
    expect(byParam.body).toMatchObject({ id: target.id });
  });

  test("under sudo, admin-only actions are judged as the target user", async () => {
    const target = await createUser(stack);
    const victim = await createUser(stack);
    const res = await stack.gw.post(`/api/v4/users/${victim.id}/block`, {
      token: admin.secret,
      headers: { Sudo: String(target.id) },
    });
    expectError(res, 403, FORBIDDEN);
    const after = await stack.gw.get(`/api/v4/users/${victim.id}`, { token: stack.rootToken });
    expect(after.body).toMatchObject({ state: "active" });
  });

  test("under sudo as a non-admin, every endpoint answers as it would to that user", async () => {
    const target = await signedInUser(stack);
    const stranger = await createUser(stack);
    const as = { token: admin.secret, headers: { Sudo: target.user.username } };
    const profile = await stack.gw.get(`/api/v4/users/${stranger.id}`, as);
    expect(profile.status).toBe(200);
    expect(profile.body).not.toHaveProperty("email");
    expect(profile.body).not.toHaveProperty("is_admin");
    const list = await stack.gw.get(`/api/v4/users?username=${stranger.username}`, as);
    expect(Object.keys((list.body as object[])[0]!).sort()).toEqual(
      ["avatar_url", "id", "locked", "name", "state", "username", "web_url"].sort(),
    );
    const tokens = await stack.gw.get("/api/v4/personal_access_tokens", as);
    expect((tokens.body as { user_id: number }[]).map((t) => t.user_id)).toEqual([target.user.id]);
    // `self` is the token the request was made with: the admin's, even under sudo.
    const self = await stack.gw.get("/api/v4/personal_access_tokens/self", as);
    expect(self.body).toMatchObject({ user_id: admin.id, scopes: ["api", "sudo"] });
    expectError(await stack.gw.post("/api/v4/users", { ...as, json: newUserBody() }), 403, FORBIDDEN);
    expectError(
      await stack.gw.get(`/api/v4/personal_access_tokens?user_id=${admin.id}`, as),
      401,
      UNAUTHORIZED,
    );
  });

  test("under sudo as another admin, admin-only endpoints work", async () => {
    const otherAdmin = await createUser(stack, { admin: true });
    const body = newUserBody();
    const res = await stack.gw.post("/api/v4/users", {
      token: admin.secret,
      headers: { Sudo: String(otherAdmin.id) },
      json: body,
    });
    expect(res.status).toBe(201);
    expect(await countUsersNamed(body.username)).toBe(1);
  });

  test("a non-admin may not use sudo", async () => {
    const { secret } = await signedInUser(stack, ["api", "read_user"]);
    const target = await createUser(stack);
    for (const sudo of [String(target.id), target.username, "no-such-user"]) {
      const res = await stack.gw.get("/api/v4/user", { token: secret, headers: { Sudo: sudo } });
      expectError(res, 403, { message: "403 Forbidden - Must be admin to use sudo" });
    }
  });

  test("under sudo as another user, the token's other scopes do not matter (GitLab skips the endpoint's)", async () => {
    const onlySudo = (await signedInUser(stack, ["sudo"], { admin: true })).secret;
    const readAndSudo = (await signedInUser(stack, ["read_api", "sudo"], { admin: true })).secret;
    const target = await createUser(stack, { admin: true });
    const as = { Sudo: target.username };
    for (const token of [onlySudo, readAndSudo]) {
      const me = await stack.gw.get("/api/v4/user", { token, headers: as });
      expect(me.body).toMatchObject({ id: target.id });
      const body = newUserBody();
      expect((await stack.gw.post("/api/v4/users", { token, headers: as, json: body })).status).toBe(201);
      expect(await countUsersNamed(body.username)).toBe(1);
    }
    // Without Sudo, the same tokens are judged by their scopes.
    expectError(
      await stack.gw.get("/api/v4/user", { token: onlySudo }),
      403,
      insufficientScope("read_user api read_api"),
    );
    expectError(
      await stack.gw.post("/api/v4/groups", { token: readAndSudo, json: { name: "x", path: unique("x") } }),
      403,
      insufficientScope("api read_api"),
    );
  });

  test("an admin whose token lacks the sudo scope gets 403 insufficient_scope", async () => {
    const target = await createUser(stack);
    const res = await stack.gw.get("/api/v4/user", {
      token: adminWithoutSudo,
      headers: { Sudo: String(target.id) },
    });
    expectError(res, 403, insufficientScope("sudo"));
  });

  test("an unknown user is 404, naming what was asked for", async () => {
    for (const who of ["nobody_" + unique(), "999999999", "O'Brien; DROP TABLE users; --"]) {
      const res = await stack.gw.get("/api/v4/user", { token: admin.secret, headers: { Sudo: who } });
      expectError(res, 404, { message: `404 User with ID or username '${who}' Not Found` });
    }
  });

  test("a NUL byte in sudo is 400, not a database error", async () => {
    const res = await stack.gw.get("/api/v4/user?sudo=a%00b", { token: admin.secret });
    expectError(res, 400, { error: "sudo is invalid" });
  });

  test("sudo without a token is 401, not an anonymous request", async () => {
    const res = await stack.gw.get("/api/v4/users", { headers: { Sudo: "root" } });
    expectError(res, 401, UNAUTHORIZED);
  });
});

function newUserBody() {
  const username = unique("scoped_");
  return { username, email: `${username}@example.com`, name: "Scoped", password: "long-enough-pw" };
}

async function countUsersNamed(username: string) {
  const { rows } = await stack.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM auth.users WHERE username = $1",
    [username],
  );
  return rows[0]!.n;
}
