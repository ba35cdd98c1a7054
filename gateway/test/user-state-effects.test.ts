/**
 * What a user state action changes beyond the state (user-state-http.test.ts has the rules): the
 * user's tokens stop working the moment they leave the active state, on every gateway, and work again
 * when they are back; the other services' copies of users learn the state; GET /users filters by it.
 * States no API call produces (pending approval, LDAP-blocked) are set in the database.
 */
import {
  createUser,
  expectError,
  signedInUser,
  startStack,
  waitFor,
  type Gateway,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
let plain: SignedIn;
let other: Gateway;
beforeAll(async () => {
  stack = await startStack();
  plain = await signedInUser(stack);
  other = await stack.addGateway();
}, 30_000);
afterAll(() => stack.stop());

/** `token` null: anonymous. */
const post = (id: number, action: string, token: string | null = stack.rootToken, gw = stack.gw) =>
  gw.post(`/api/v4/users/${id}/${action}`, token === null ? {} : { token });
/** A state no API call gives (the directory's block, a sign-up waiting for approval). */
const setState = (id: number, state: string) =>
  stack.db.query("UPDATE auth.users SET state = $2 WHERE id = $1", [id, state]);
/**
 * The requests a test makes as the user count as activity (recorded once a day, after the answer),
 * and GitLab deactivates no one active in the past 90 days: wait for the day to be recorded, then
 * move it back.
 */
async function makeDormant(id: number) {
  await waitFor("the activity recorded", async () => {
    const { rows } = await stack.db.query("SELECT last_activity_on FROM auth.users WHERE id = $1", [id]);
    return rows[0]?.last_activity_on ? true : undefined;
  });
  await stack.db.query(
    "UPDATE auth.users SET last_activity_on = current_date - 100, current_sign_in_at = now() - interval '100 days', last_sign_in_at = now() - interval '100 days' WHERE id = $1",
    [id],
  );
}
const userIn = async (state: string) => {
  const u = await createUser(stack);
  if (state !== "active") await setState(u.id, state);
  return u;
};

describe("a user's tokens follow their state at once, on every gateway", () => {
  const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };
  const DEACTIVATED = {
    message:
      "403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at https://canopy.example.com",
  };
  const PENDING = {
    message: "403 Forbidden - Your account is pending approval from your administrator and hence blocked.",
  };
  const onOther = async (secret: string, status: number) => {
    await waitFor(`${status} on the other gateway`, async () =>
      (await other.get("/api/v4/user", { token: secret })).status === status ? true : undefined,
    );
    return other.get("/api/v4/user", { token: secret });
  };

  test.each([
    ["block", "unblock", BLOCKED],
    ["ban", "unban", BLOCKED],
    ["deactivate", "activate", DEACTIVATED],
  ] as const)("%s refuses the token at once, %s lets it back in", async (off, on, refusal) => {
    const u = await signedInUser(stack);
    for (const g of [stack.gw, other, stack.gw, other])
      expect((await g.get("/api/v4/user", { token: u.secret })).status).toBe(200);
    if (off === "deactivate") await makeDormant(u.user.id);
    expect((await post(u.user.id, off)).status).toBe(201);
    expectError(await stack.gw.get("/api/v4/user", { token: u.secret }), 403, refusal);
    expectError(await onOther(u.secret, 403), 403, refusal);
    expect((await post(u.user.id, on)).status).toBe(201);
    expect((await stack.gw.get("/api/v4/user", { token: u.secret })).status).toBe(200);
    expect((await onOther(u.secret, 200)).status).toBe(200);
  });

  test("a user pending approval is refused with GitLab's words until approved", async () => {
    const u = await signedInUser(stack);
    await setState(u.user.id, "blocked_pending_approval");
    // Written behind the API's back: no event dropped the cached answer, so ask a fresh gateway.
    const fresh = await stack.addGateway();
    expectError(await fresh.get("/api/v4/user", { token: u.secret }), 403, PENDING);
    expect((await post(u.user.id, "approve", stack.rootToken, fresh)).status).toBe(201);
    expect((await fresh.get("/api/v4/user", { token: u.secret })).status).toBe(200);
  });
});

describe("the other services' copies of users", () => {
  const copies = async (id: number) => {
    const [groups, projects] = await Promise.all(
      ["groups", "projects"].map(async (schema) => {
        const { rows } = await stack.db.query(`SELECT state FROM ${schema}.users WHERE id = $1`, [id]);
        return rows[0]?.state as string | undefined;
      }),
    );
    return { groups, projects };
  };
  const copiesSay = (id: number, state: string) =>
    waitFor(`the copies say ${state}`, async () => {
      const c = await copies(id);
      return c.groups === state && c.projects === state ? true : undefined;
    });

  test("learn each new state from auth's UserUpdated event", async () => {
    const u = await createUser(stack);
    await copiesSay(u.id, "active");
    for (const [action, state] of [
      ["ban", "banned"],
      ["unban", "active"],
      ["deactivate", "deactivated"],
      ["activate", "active"],
      ["block", "blocked"],
      ["unblock", "active"],
    ] as const) {
      expect((await post(u.id, action)).status).toBe(201);
      await copiesSay(u.id, state);
    }
  });
});

describe("GET /users and the states", () => {
  test("blocked=true lists blocked and LDAP-blocked users; active=true active ones; both, nobody", async () => {
    const states = ["active", "blocked", "ldap_blocked", "banned", "deactivated", "blocked_pending_approval"];
    const made = new Map<number, string>();
    for (const s of states) made.set((await userIn(s)).id, s);
    const listed = async (query: string, token = stack.rootToken) => {
      const res = await stack.gw.get(`/api/v4/users?per_page=100&${query}`, { token });
      expect(res.status).toBe(200);
      return (res.body as { id: number; state: string }[])
        .filter((u) => made.has(u.id))
        .map((u) => u.state)
        .sort();
    };
    expect(await listed("blocked=true")).toEqual(["blocked", "ldap_blocked"]);
    expect(await listed("active=true")).toEqual(["active"]);
    expect(await listed("active=true&blocked=true")).toEqual([]);
    expect(await listed("")).toEqual([...states].sort());
    // Others never see blocked, LDAP-blocked or banned users (GitLab's UsersFinder).
    expect(await listed("", plain.secret)).toEqual(["active", "blocked_pending_approval", "deactivated"]);
  });
});
