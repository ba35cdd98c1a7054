/**
 * The gateway with its Redis stopped (a Redis of this file's own: the machine's is shared): the API
 * keeps answering, authentication asks the auth service, rate limits are counted in the gateway's
 * own process, web pages answer 503 naming the session store, and everything is shared through Redis
 * again once it is back.
 *
 * Every request here has a deadline shorter than the Redis client's own default command timeout
 * (5 s): a gateway whose commands wait for a Redis that is gone (queued until it returns or until
 * that timeout) misses it on every request, one that is refused at once and falls back answers in
 * milliseconds.
 */
import { connectRedis } from "@canopy/kit";
import { OwnRedis, quietLog } from "@canopy/kit/testing";
import { createToken, signedInUser, startStack, waitFor, type Gateway, type Stack } from "./support";

const DEADLINE_MS = 4_000;
/** A budget this file's requests on the second gateway reach in a few steps. */
const USER_BUDGET = 4;

let redis: OwnRedis;
let stack: Stack;
let limited: Gateway;
beforeAll(async () => {
  redis = await OwnRedis.start();
  stack = await startStack({
    gateways: [
      { CANOPY_REDIS_URL: redis.url },
      { CANOPY_REDIS_URL: redis.url, CANOPY_RATE_LIMIT_AUTHENTICATED: String(USER_BUDGET) },
    ],
  });
  limited = stack.gateways[1]!;
}, 60_000);
// Redis is still stopped here (the last test leaves it so): the gateways must shut down all the same.
afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

/** One request that must answer within DEADLINE_MS: its status, or "no answer". */
async function statusOf(gw: Gateway, path: string, token?: string): Promise<number | string> {
  try {
    const res = await fetch(gw.base + path, {
      headers: token ? { "PRIVATE-TOKEN": token } : {},
      signal: AbortSignal.timeout(DEADLINE_MS),
      redirect: "manual",
    });
    await res.text();
    return res.status;
  } catch (err) {
    return `no answer: ${(err as Error).message}`;
  }
}

it("answers while Redis is down, and shares through it again once it is back", async () => {
  const { user, secret } = await signedInUser(stack);
  expect(await statusOf(stack.gw, "/api/v4/user", secret)).toBe(200);
  expect(await statusOf(stack.gw, "/users/sign_in")).toBe(200);

  await redis.stop();
  // A token this gateway has just seen, one made now (known to no cache, so only the auth
  // service can answer for it), and an anonymous caller.
  const fresh = (await createToken(stack, user.id)).token;
  expect(await statusOf(stack.gw, "/api/v4/user", secret)).toBe(200);
  expect(await statusOf(stack.gw, "/api/v4/user", fresh)).toBe(200);
  expect(await statusOf(stack.gw, "/api/v4/groups")).toBe(200);
  // Every page needs its session: a clear 503, not a hang and not a 500.
  const page = await fetch(`${stack.gw.base}/users/sign_in`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  expect(page.status).toBe(503);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain("503 Service Unavailable - the session store (Redis) is not answering");
  // Still ready, degraded: a 503 would take every gateway out of the load balancer at once.
  const ready = await fetch(`${stack.gw.base}/-/readiness`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  expect(ready.status).toBe(200);
  expect(await ready.json()).toMatchObject({ status: "degraded", failed: [], degraded: ["redis"] });

  await redis.start();
  await waitFor(
    "the sign-in page again",
    async () => (await statusOf(stack.gw, "/users/sign_in")) === 200,
    15_000,
  );
  // Shared again: the other gateway, which never saw the fresh token, keeps its answer in Redis.
  await waitFor("the other gateway back", async () => (await statusOf(limited, "/users/sign_in")) === 200);
  expect(await statusOf(limited, "/api/v4/user", fresh)).toBe(200);
  const client = await connectRedis(redis.url, quietLog);
  try {
    expect(await client.keys("canopy:authn:*")).not.toEqual([]);
  } finally {
    await client.quit();
  }
});

it("counts a user's requests in the gateway's own process while Redis is down", async () => {
  const { secret } = await signedInUser(stack);
  await redis.stop();
  const statuses: (number | string)[] = [];
  for (let i = 0; i <= USER_BUDGET; i++) statuses.push(await statusOf(limited, "/api/v4/user", secret));
  expect(statuses).toEqual([...Array(USER_BUDGET).fill(200), 429]);
});
