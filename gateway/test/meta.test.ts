/**
 * Health endpoints, GET /version, GitLab's catch-all answers (unknown route, API v3) and the
 * headers every answer carries (X-Request-Id, GitLab's API headers).
 */
import {
  expectError,
  expectJsonHeaders,
  insufficientScope,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

describe("health", () => {
  test("/-/health answers GitLab's plain text", async () => {
    const res = await stack.gw.get("/-/health");
    expect(res.status).toBe(200);
    expect(res.text).toBe("GitLab OK");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });

  test("/-/liveness answers ok without asking any dependency", async () => {
    const res = await stack.gw.get("/-/liveness");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  test("/-/readiness names every dependency it checked", async () => {
    const res = await stack.gw.get("/-/readiness");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ok",
      failed: [],
      degraded: [],
      checks: { redis: "ok", nats: "ok", auth: "ok" },
    });
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  test("health endpoints need no token and ignore a bad one", async () => {
    const res = await stack.gw.get("/-/health", { token: "glpat-not-a-real-token-at-all" });
    expect(res.status).toBe(200);
  });
});

describe("GET /api/v4/version", () => {
  const VERSION = {
    version: "17.5.0",
    revision: expect.any(String),
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: true,
  };

  test("anonymous callers get 401", async () => {
    expectError(await stack.gw.get("/api/v4/version"), 401, UNAUTHORIZED);
  });

  test.each([["api"], ["read_api"], ["read_user"]])("a token with %s reads it", async (scope) => {
    const { secret } = await signedInUser(stack, [scope]);
    const res = await stack.gw.get("/api/v4/version", { token: secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(VERSION);
    expectJsonHeaders(res);
  });

  test("a token with neither api nor read_user scope gets 403 (GitLab spec/requests/api/version_spec.rb)", async () => {
    const { secret } = await signedInUser(stack, ["read_repository"]);
    const res = await stack.gw.get("/api/v4/version", { token: secret });
    expectError(res, 403, insufficientScope("read_user api read_api"));
  });
});

describe("catch-all routes", () => {
  test.each([
    ["GET", "/api/v4/nothing-here"],
    ["GET", "/api/v4/users/1/nothing"],
    ["PATCH", "/api/v4/users/1"],
    ["POST", "/api/v4/user"],
    ["GET", "/nothing"],
  ])("%s %s answers 404 {error}", async (method, path) => {
    const res = await stack.gw.request(method, path, { token: stack.rootToken });
    expectError(res, 404, { error: "404 Not Found" });
  });

  test("an unknown route is 404 even for an anonymous caller", async () => {
    expectError(await stack.gw.get("/api/v4/nothing-here"), 404, { error: "404 Not Found" });
  });

  test("/api/v3 is gone", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const res = await stack.gw.request(method, "/api/v3/x");
      expectError(res, 410, { error: "API V3 is no longer supported. Use API V4 instead." });
    }
  });
});

describe("X-Request-Id", () => {
  test("every answer carries one, each different", async () => {
    const answers = await Promise.all([
      stack.gw.get("/-/health"),
      stack.gw.get("/-/liveness"),
      stack.gw.get("/api/v4/users"),
      stack.gw.get("/api/v4/user"),
      stack.gw.get("/api/v4/nothing"),
      stack.gw.get("/api/v3/x"),
      stack.gw.get("/api/v4/users/abc"),
      stack.gw.get("/api/v4/user", { token: "glpat-unknown-token-000000" }),
      stack.gw.post("/api/v4/users", {
        token: stack.rootToken,
        raw: "{",
        headers: { "Content-Type": "application/json" },
      }),
    ]);
    const ids = answers.map((res) => res.headers.get("x-request-id"));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a sane incoming id is echoed, on success and on error", async () => {
    for (const path of ["/api/v4/users", "/api/v4/nothing", "/-/health"]) {
      const res = await stack.gw.get(path, { headers: { "X-Request-Id": "client-req.42_A" } });
      expect(res.headers.get("x-request-id")).toBe("client-req.42_A");
    }
  });

  test.each([
    ["too long", "a".repeat(65)],
    ["with spaces", "a b"],
    ["with a header injection attempt", "abc%0d%0aSet-Cookie:x=1"],
    ["with quotes", '"x"'],
  ])("an incoming id %s is replaced", async (_what, incoming) => {
    const res = await stack.gw.get("/api/v4/users", { headers: { "X-Request-Id": incoming } });
    expect(res.headers.get("x-request-id")).not.toBe(incoming);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("GitLab's API headers", () => {
  test("JSON answers say application/json exactly, with SAMEORIGIN and nosniff", async () => {
    const { secret } = await signedInUser(stack);
    for (const res of [
      await stack.gw.get("/api/v4/user", { token: secret }),
      await stack.gw.get("/api/v4/users"),
      await stack.gw.post("/api/v4/users", { token: secret, json: {} }),
      await stack.gw.get("/api/v4/users/999999999"),
    ]) {
      expectJsonHeaders(res);
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });
});
