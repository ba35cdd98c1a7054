/**
 * The authentication cache across gateways: two gateways share Redis and hear the auth service's
 * events over NATS. A revocation or block made through one must reach the other (the event's trip,
 * waited for by polling), and changes made behind the API's back are seen by a gateway that does
 * not cache.
 */
import {
  expectError,
  REVOKED,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type Gateway,
  type Reply,
  type Stack,
  waitFor,
} from "./support";

let stack: Stack;
let a: Gateway;
let b: Gateway;
let uncached: Gateway;
beforeAll(async () => {
  stack = await startStack({ gateways: [{}, {}, { CANOPY_AUTH_CACHE_SECONDS: "0" }] });
  [a, b, uncached] = stack.gateways as [Gateway, Gateway, Gateway];
}, 30_000);
afterAll(() => stack.stop());

/**
 * Asks `gateway` until it answers `status` (the event has reached it) and returns that answer; if it
 * never does, the last answer, for the assertion to show.
 */
async function answerOnceChanged(gateway: Gateway, secret: string, status: number): Promise<Reply> {
  let last: Reply | undefined;
  const changed = async () => {
    last = await gateway.get("/api/v4/user", { token: secret });
    return last.status === status;
  };
  await waitFor(`${status} from the other gateway`, changed).catch(() => undefined);
  return last!;
}

const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };

test("a token revoked through gateway A is refused by gateway B within the event's trip", async () => {
  const { token, secret } = await signedInUser(stack);
  // Warm both gateways (their own memory and the shared Redis entry).
  for (const g of [a, b, a, b]) expect((await g.get("/api/v4/user", { token: secret })).status).toBe(200);
  const revoked = await a.delete(`/api/v4/personal_access_tokens/${token.id}`, { token: secret });
  expect(revoked.status).toBe(204);
  // Gateway A dropped its own copy before answering.
  expectError(await a.get("/api/v4/user", { token: secret }), 401, REVOKED);
  expectError(await answerOnceChanged(b, secret, 401), 401, REVOKED);
});

test("revoking through /personal_access_tokens/self reaches the other gateway too", async () => {
  const { secret } = await signedInUser(stack);
  for (const g of [a, b]) expect((await g.get("/api/v4/user", { token: secret })).status).toBe(200);
  expect((await b.delete("/api/v4/personal_access_tokens/self", { token: secret })).status).toBe(204);
  expectError(await b.get("/api/v4/user", { token: secret }), 401, REVOKED);
  expectError(await answerOnceChanged(a, secret, 401), 401, REVOKED);
});

test("a user blocked through gateway A is refused by gateway B within the event's trip", async () => {
  const { user, secret } = await signedInUser(stack);
  for (const g of [a, b, a, b]) expect((await g.get("/api/v4/user", { token: secret })).status).toBe(200);
  expect((await a.post(`/api/v4/users/${user.id}/block`, { token: stack.rootToken })).status).toBe(201);
  expectError(await a.get("/api/v4/user", { token: secret }), 403, BLOCKED);
  expectError(await answerOnceChanged(b, secret, 403), 403, BLOCKED);
  // And unblocking reaches B as well (B had cached the refusal).
  expect((await a.post(`/api/v4/users/${user.id}/unblock`, { token: stack.rootToken })).status).toBe(201);
  expect((await a.get("/api/v4/user", { token: secret })).status).toBe(200);
  expect((await answerOnceChanged(b, secret, 200)).status).toBe(200);
});

test("a user deleted through gateway B loses access on gateway A within the event's trip", async () => {
  const { user, secret } = await signedInUser(stack);
  for (const g of [a, b]) expect((await g.get("/api/v4/user", { token: secret })).status).toBe(200);
  expect((await b.delete(`/api/v4/users/${user.id}`, { token: stack.rootToken })).status).toBe(204);
  expectError(await answerOnceChanged(a, secret, 401), 401, UNAUTHORIZED);
});

test("a gateway without a cache sees changes made directly in the database", async () => {
  const { token, secret } = await signedInUser(stack);
  expect((await uncached.get("/api/v4/user", { token: secret })).status).toBe(200);
  await stack.db.query("UPDATE auth.personal_access_tokens SET revoked = true WHERE id = $1", [token.id]);
  expectError(await uncached.get("/api/v4/user", { token: secret }), 401, REVOKED);
  await stack.db.query(
    "UPDATE auth.personal_access_tokens SET revoked = false, expires_at = current_date WHERE id = $1",
    [token.id],
  );
  const res = await uncached.get("/api/v4/user", { token: secret });
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({
    error: "invalid_token",
    error_description: expect.stringMatching(/^Token is expired/),
  });
});

test("the shared Redis entry is keyed by a hash, never by the token", async () => {
  const { secret } = await signedInUser(stack);
  expect((await a.get("/api/v4/user", { token: secret })).status).toBe(200);
  const keys = await stack.redis.keys("canopy:authn:*");
  expect(keys.length).toBeGreaterThan(0);
  expect(keys.some((k) => k.includes(secret) || k.includes(secret.slice(6)))).toBe(false);
  for (const key of keys.filter((k) => /^canopy:authn:[0-9a-f]{64}$/.test(k)).slice(0, 50)) {
    const value = await stack.redis.get(key);
    expect(value ?? "").not.toContain(secret);
  }
});
