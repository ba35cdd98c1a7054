/**
 * Rate limits (GitLab's Rack::Attack throttles): per IP for requests without a good token, per user
 * otherwise, counted in Redis so every gateway shares them.
 *
 * Counters live in Redis, keyed by IP or user id, and other test files (and other runs, whose
 * databases reuse user ids) share that Redis. So each test uses a key nobody else uses (a random
 * forwarded IP behind a trusted-proxy gateway) or deletes its key first and only asserts what extra
 * traffic could not change. Tests in a file run one after another.
 */
import { randomInt } from "node:crypto";
import { signedInUser, startStack, type Gateway, type Reply, type Stack } from "./support";

const LIMITS = { CANOPY_RATE_LIMIT_UNAUTHENTICATED: "3", CANOPY_RATE_LIMIT_AUTHENTICATED: "5" };
const ipKey = (ip: string) => `canopy:rl:throttle_unauthenticated_api:ip:${ip}`;
const userKey = (id: number) => `canopy:rl:throttle_authenticated_api:user:${id}`;

let stack: Stack;
let proxied: Gateway;
let direct: Gateway;
beforeAll(async () => {
  // The first gateway has generous limits and is used for setup; the other two count 3 and 5.
  stack = await startStack({ gateways: [{}, { ...LIMITS, CANOPY_TRUST_PROXY: "true" }, LIMITS] });
  [, proxied, direct] = stack.gateways as [Gateway, Gateway, Gateway];
}, 30_000);
afterAll(() => stack.stop());

/** An address from the benchmarking range (RFC 2544) that no other test uses. */
async function freshIp() {
  const ip = `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  await stack.redis.del(ipKey(ip));
  return ip;
}

function expectThrottled(res: Reply, name: string, limit: number, observed?: number) {
  expect({ status: res.status, text: res.text }).toEqual({ status: 429, text: "Retry later\n" });
  expect(res.headers.get("content-type")).toBe("text/plain");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(res.headers.get("ratelimit-name")).toBe(name);
  expect(res.headers.get("ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("ratelimit-remaining")).toBe("0");
  const reset = Number(res.headers.get("ratelimit-reset"));
  expect(Math.abs(reset - (Date.now() / 1000 + retryAfter))).toBeLessThanOrEqual(2);
  const seen = Number(res.headers.get("ratelimit-observed"));
  if (observed === undefined) expect(seen).toBeGreaterThan(limit);
  else expect(seen).toBe(observed);
}

test("anonymous requests: 3 per IP, then 429 with Retry-After and RateLimit-* headers", async () => {
  const ip = await freshIp();
  const headers = { "X-Forwarded-For": ip };
  for (let i = 0; i < 3; i++)
    expect((await proxied.get("/api/v4/users?per_page=1", { headers })).status).toBe(200);
  expectThrottled(
    await proxied.get("/api/v4/users?per_page=1", { headers }),
    "throttle_unauthenticated_api",
    3,
    4,
  );
  expectThrottled(await proxied.get("/api/v4/users/1", { headers }), "throttle_unauthenticated_api", 3, 5);
  // A bad token counts against the IP too, and the throttle answers first.
  const badToken = await proxied.get("/api/v4/users", { headers, token: "glpat-unknown-token-000000" });
  expectThrottled(badToken, "throttle_unauthenticated_api", 3, 6);
  // Another address has its own budget; health checks are never throttled.
  expect(
    (await proxied.get("/api/v4/users?per_page=1", { headers: { "X-Forwarded-For": await freshIp() } }))
      .status,
  ).toBe(200);
  expect((await proxied.get("/-/health", { headers })).status).toBe(200);
});

test("signed-in requests: 5 per user, then 429, on every gateway; others are unaffected", async () => {
  const { user, secret } = await signedInUser(stack);
  const other = await signedInUser(stack);
  await stack.redis.del([userKey(user.id), userKey(other.user.id)]);
  const headers = { "X-Forwarded-For": await freshIp() };
  for (let i = 0; i < 5; i++)
    expect((await proxied.get("/api/v4/user", { token: secret, headers })).status).toBe(200);
  expectThrottled(
    await proxied.get("/api/v4/user", { token: secret, headers }),
    "throttle_authenticated_api",
    5,
    6,
  );
  // The count is shared through Redis: the other limited gateway refuses too.
  expectThrottled(await direct.get("/api/v4/user", { token: secret }), "throttle_authenticated_api", 5, 7);
  // Another user is fine, and the user's requests did not use up the IP's anonymous budget.
  expect((await proxied.get("/api/v4/user", { token: other.secret, headers })).status).toBe(200);
  expect((await proxied.get("/api/v4/users?per_page=1", { headers })).status).toBe(200);
});

test("without a trusted proxy the socket address counts, and X-Forwarded-For is ignored", async () => {
  // Other test files send anonymous requests from this address too (to gateways with generous
  // limits): clear its counter, then allow that their traffic may bring the 429 earlier.
  await stack.redis.del(["127.0.0.1", "::ffff:127.0.0.1", "::1"].map(ipKey));
  const spoofed = await freshIp();
  let res: Reply | undefined;
  for (let i = 0; i < 4; i++) {
    res = await direct.get("/api/v4/users?per_page=1", { headers: { "X-Forwarded-For": spoofed } });
    if (res.status === 429) break;
  }
  expectThrottled(res!, "throttle_unauthenticated_api", 3);
  expect(await stack.redis.exists(ipKey(spoofed))).toBe(0);
});
