/**
 * When events are late: the auth service cannot publish (its NATS connection is closed), so no
 * gateway hears of a change through the event stream. The gateway that served the change must still
 * answer from the new state at once, whatever it had cached.
 *
 * (Other test files' auth services share the outbox and may publish these events for us; the
 * assertions hold either way.)
 */
import {
  createUser,
  expectError,
  FORBIDDEN,
  PASSWORD,
  REVOKED,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  // Password grants and revocations from every test file share the per-IP OAuth budget in Redis.
  stack = await startStack({
    gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000", CANOPY_RATE_LIMIT_SIGN_IN: "1000000" }],
  });
}, 30_000);
afterAll(async () => {
  // The auth service's NATS connection is already closed, so its own stop fails half-way.
  await stack.stop().catch(() => stack.authService.pool.end());
});

const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };
const me = (who: SignedIn) => stack.gw.get("/api/v4/user", { token: who.secret });

test("block, unblock, delete, demote and revoke take effect at once on the gateway that served them", async () => {
  const blocked = await signedInUser(stack);
  const deleted = await signedInUser(stack);
  const revoked = await signedInUser(stack);
  const demoted = await signedInUser(stack, ["api"], { admin: true });
  // Cache an accepted answer for every token.
  for (const who of [blocked, deleted, revoked, demoted]) expect((await me(who)).status).toBe(200);

  await stack.authService.nc.close();
  const root = { token: stack.rootToken };

  expect((await stack.gw.post(`/api/v4/users/${blocked.user.id}/block`, root)).status).toBe(201);
  expectError(await me(blocked), 403, BLOCKED);
  expect((await stack.gw.post(`/api/v4/users/${blocked.user.id}/unblock`, root)).status).toBe(201);
  expect((await me(blocked)).status).toBe(200);

  expect((await stack.gw.delete(`/api/v4/users/${deleted.user.id}`, root)).status).toBe(204);
  expectError(await me(deleted), 401, UNAUTHORIZED);

  expect((await stack.gw.delete(`/api/v4/personal_access_tokens/${revoked.token.id}`, root)).status).toBe(
    204,
  );
  expectError(await me(revoked), 401, REVOKED);

  expect(
    (await stack.gw.put(`/api/v4/users/${demoted.user.id}`, { ...root, json: { admin: false } })).status,
  ).toBe(200);
  const asAdmin = await stack.gw.post(`/api/v4/users/${blocked.user.id}/block`, { token: demoted.secret });
  expectError(asAdmin, 403, FORBIDDEN);
});

test("an OAuth token revoked through /oauth/revoke is refused at once by the gateway that revoked it", async () => {
  const user = await createUser(stack);
  const grant = await stack.gw.post("/oauth/token", {
    form: { grant_type: "password", username: user.username, password: PASSWORD, scope: "api" },
  });
  expect(grant.status).toBe(200);
  const token = (grant.body as { access_token: string }).access_token;
  expect((await stack.gw.get("/api/v4/user", { token })).status).toBe(200); // cached now

  await stack.authService.nc.close(); // no event will tell this gateway
  expect((await stack.gw.post("/oauth/revoke", { form: { token } })).status).toBe(200);
  expectError(await stack.gw.get("/api/v4/user", { token }), 401, REVOKED);
});
