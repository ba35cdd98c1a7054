/**
 * Who is calling: where the token is read from, and every way a token is refused (unknown, expired,
 * revoked, its user blocked or deleted), with GitLab's API-guard bodies and headers.
 */
import {
  EXPIRED,
  expectError,
  FORBIDDEN,
  REVOKED,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  wwwAuthenticate,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };

describe("where the token is read from", () => {
  test.each<[string, (t: string) => { path: string; headers?: Record<string, string> }]>([
    ["PRIVATE-TOKEN header", (t) => ({ path: "/api/v4/user", headers: { "PRIVATE-TOKEN": t } })],
    ["Authorization: Bearer", (t) => ({ path: "/api/v4/user", headers: { Authorization: `Bearer ${t}` } })],
    [
      "Authorization: bearer (any case)",
      (t) => ({ path: "/api/v4/user", headers: { Authorization: `bearer ${t}` } }),
    ],
    ["?private_token=", (t) => ({ path: `/api/v4/user?private_token=${t}` })],
    ["?access_token=", (t) => ({ path: `/api/v4/user?access_token=${t}` })],
  ])("%s", async (_where, place) => {
    const { user, secret } = await signedInUser(stack);
    const { path, headers } = place(secret);
    const res = await stack.gw.get(path, { headers });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, username: user.username });
  });

  test("private_token in a form body", async () => {
    const { secret } = await signedInUser(stack);
    const res = await stack.gw.delete("/api/v4/personal_access_tokens/self", {
      form: { private_token: secret },
    });
    expect(res.status).toBe(204);
  });

  test.each([
    ["Authorization: Bearer", "access_token", { Authorization: "Bearer " }],
    ["Authorization: Bearer", "private_token", { Authorization: "Bearer " }],
    ["PRIVATE-TOKEN", "private_token", { "PRIVATE-TOKEN": "" }],
    ["PRIVATE-TOKEN", "access_token", { "PRIVATE-TOKEN": "" }],
  ])("a token in %s and ?%s= both is 400 invalid_request", async (_header, param, headerTemplate) => {
    const { secret } = await signedInUser(stack);
    const headers = Object.fromEntries(Object.entries(headerTemplate).map(([k, v]) => [k, v + secret]));
    const res = await stack.gw.get(`/api/v4/user?${param}=${secret}`, { headers });
    expectError(res, 400, {
      error: "invalid_request",
      error_description: "Both Authorization header and payload includes access token.",
    });
  });

  test("an empty PRIVATE-TOKEN header counts as none (anonymous)", async () => {
    const res = await stack.gw.get("/api/v4/users?per_page=1", { token: "" });
    expect(res.status).toBe(200);
  });

  test("another Authorization scheme is not a token (anonymous)", async () => {
    expectError(
      await stack.gw.get("/api/v4/user", { headers: { Authorization: "Basic cm9vdDpwdw==" } }),
      401,
      UNAUTHORIZED,
    );
  });
});

describe("a token that does not authenticate", () => {
  test.each([
    ["an unknown glpat- token", "glpat-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
    ["a token without the prefix", "not-a-gitlab-token"],
    ["a very long token", `glpat-${"x".repeat(5000)}`],
  ])("%s is 401 even on a route open to anonymous callers", async (_what, token) => {
    for (const path of ["/api/v4/users", "/api/v4/users/1", "/api/v4/user"]) {
      const res = await stack.gw.get(path, { token });
      expectError(res, 401, UNAUTHORIZED);
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
    expectError(await stack.gw.get(`/api/v4/users?private_token=${token}`), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.get("/api/v4/users", { headers: { Authorization: `Bearer ${token}` } }),
      401,
      UNAUTHORIZED,
    );
  });

  test("no credentials on a route that needs a user is 401 without WWW-Authenticate", async () => {
    const res = await stack.gw.get("/api/v4/user");
    expectError(res, 401, UNAUTHORIZED);
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  test("an expired token (expiry today or earlier) is refused with WWW-Authenticate", async () => {
    for (const days of [0, 3]) {
      // A token never used before, so no gateway has cached an answer for it.
      const { token, secret } = await signedInUser(stack);
      await stack.db.query(
        "UPDATE auth.personal_access_tokens SET expires_at = current_date - $2::int WHERE id = $1",
        [token.id, days],
      );
      for (const path of ["/api/v4/user", "/api/v4/users"]) {
        const res = await stack.gw.get(path, { token: secret });
        expectError(res, 401, EXPIRED);
        expect(res.headers.get("www-authenticate")).toBe(wwwAuthenticate(EXPIRED.error_description));
      }
    }
  });

  test("expired is reported before revoked, as GitLab's guard does", async () => {
    const { token, secret } = await signedInUser(stack);
    await stack.db.query(
      "UPDATE auth.personal_access_tokens SET expires_at = current_date - 1, revoked = true WHERE id = $1",
      [token.id],
    );
    expectError(await stack.gw.get("/api/v4/user", { token: secret }), 401, EXPIRED);
  });

  test("a revoked token is refused with WWW-Authenticate, in every place it can be sent", async () => {
    const { token, secret } = await signedInUser(stack);
    expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
    const revoked = await stack.gw.delete(`/api/v4/personal_access_tokens/${token.id}`, {
      token: stack.rootToken,
    });
    expect(revoked.status).toBe(204);
    const ways: Record<string, string>[] = [
      { "PRIVATE-TOKEN": secret },
      { Authorization: `Bearer ${secret}` },
    ];
    for (const headers of ways) {
      const res = await stack.gw.get("/api/v4/user", { headers });
      expectError(res, 401, REVOKED);
      expect(res.headers.get("www-authenticate")).toBe(wwwAuthenticate(REVOKED.error_description));
    }
    expectError(await stack.gw.get(`/api/v4/users?access_token=${secret}`), 401, REVOKED);
  });
});

describe("the token's user", () => {
  test("a blocked user's token is refused at once after the block call, though cached", async () => {
    const { user, secret } = await signedInUser(stack);
    // Warm the caches with an accepted answer.
    expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
    expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
    const blocked = await stack.gw.post(`/api/v4/users/${user.id}/block`, { token: stack.rootToken });
    expect({ status: blocked.status, body: blocked.body }).toEqual({ status: 201, body: true });
    for (const path of ["/api/v4/user", "/api/v4/users", "/api/v4/personal_access_tokens"]) {
      expectError(await stack.gw.get(path, { token: secret }), 403, BLOCKED);
    }
  });

  test("unblocking lets the same token in again at once", async () => {
    const { user, secret } = await signedInUser(stack);
    await stack.gw.post(`/api/v4/users/${user.id}/block`, { token: stack.rootToken });
    expectError(await stack.gw.get("/api/v4/user", { token: secret }), 403, BLOCKED);
    const unblocked = await stack.gw.post(`/api/v4/users/${user.id}/unblock`, { token: stack.rootToken });
    expect({ status: unblocked.status, body: unblocked.body }).toEqual({ status: 201, body: true });
    const res = await stack.gw.get("/api/v4/user", { token: secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, state: "active" });
  });

  test("a deleted user's token no longer authenticates, at once", async () => {
    const { user, secret } = await signedInUser(stack);
    expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
    expect((await stack.gw.delete(`/api/v4/users/${user.id}`, { token: stack.rootToken })).status).toBe(204);
    expectError(await stack.gw.get("/api/v4/user", { token: secret }), 401, UNAUTHORIZED);
  });

  test("losing admin rights takes effect at once, though the token is cached", async () => {
    const { user, secret } = await signedInUser(stack, ["api"], { admin: true });
    expect((await stack.gw.get("/api/v4/personal_access_tokens?per_page=1", { token: secret })).status).toBe(
      200,
    );
    const other = await signedInUser(stack);
    expect((await stack.gw.post(`/api/v4/users/${other.user.id}/block`, { token: secret })).status).toBe(201);
    const demoted = await stack.gw.put(`/api/v4/users/${user.id}`, {
      token: stack.rootToken,
      json: { admin: false },
    });
    expect(demoted.status).toBe(200);
    expectError(
      await stack.gw.post(`/api/v4/users/${other.user.id}/unblock`, { token: secret }),
      403,
      FORBIDDEN,
    );
  });
});
