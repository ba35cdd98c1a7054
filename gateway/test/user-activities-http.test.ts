/**
 * Users' last activity (GitLab's Users::ActivityService and GET /user/activities): a signed-in
 * request records the day, with at most one write a day per user across gateways; administrators
 * list who was active since a date and see the day on users.
 */
import { createLogger } from "@canopy/kit";
import { userActivity, type common } from "@canopy/protos";
import { UserActivityRecorder } from "../src/http/user-activity";
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
  waitFor,
  type Stack,
} from "./support";

let stack: Stack;
let adminToken: string;
beforeAll(async () => {
  stack = await startStack();
  adminToken = (await createToken(stack, (await createAdmin(stack)).id)).token;
});
afterAll(() => stack.stop());

const today = () => new Date().toISOString().slice(0, 10);
const lastActivityOn = async (userId: number) =>
  (
    await stack.db.query(
      "SELECT to_char(last_activity_on, 'YYYY-MM-DD') AS d FROM auth.users WHERE id = $1",
      [userId],
    )
  ).rows[0]?.d as string | null;
const actorOf = (id: number, username: string): common.Actor => ({
  userId: id,
  username,
  admin: false,
  external: false,
  scopes: ["api"],
  tokenKind: 1,
  tokenId: 0,
  impersonatorId: 0,
});

/** A real client to the auth service that counts the RecordUserActivity calls made through it. */
function countingClient() {
  const real = stack.authService.client(userActivity.UserActivityServiceService);
  const counted = { calls: 0 };
  const client = {
    ...real,
    recordUserActivity: (...args: Parameters<typeof real.recordUserActivity>) => {
      counted.calls++;
      return real.recordUserActivity(...args);
    },
  };
  return { client, counted };
}

describe("recording", () => {
  it("a signed-in request records today, which administrators then see on the user", async () => {
    const me = await signedInUser(stack);
    expect(await lastActivityOn(me.user.id)).toBeNull();
    expect((await stack.gw.get("/api/v4/user/status", { token: me.secret })).status).toBe(200);
    await waitFor("the day to be written", async () => (await lastActivityOn(me.user.id)) === today());
    const shown = await stack.gw.get(`/api/v4/users/${me.user.id}`, { token: adminToken });
    expect(shown.body).toMatchObject({ last_activity_on: today() });
    const listed = await stack.gw.get(`/api/v4/users?username=${me.user.username}`, { token: adminToken });
    expect(listed.body).toEqual([expect.objectContaining({ last_activity_on: today() })]);
    const created = Date.parse(me.user.created_at as string);
    expect(await stack.redis.get(`canopy:activity:${me.user.id}:${created}:${today()}`)).toBe("1");
  });

  it("requests under Sudo or with an impersonation token are an administrator's: not the user's activity", async () => {
    const target = await createUser(stack);
    const sudoer = (await signedInUser(stack, ["api", "sudo"], { admin: true })).secret;
    const made = await stack.gw.post(`/api/v4/users/${target.id}/impersonation_tokens`, {
      token: adminToken,
      json: {
        name: "imp",
        scopes: ["api"],
        expires_at: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
      },
    });
    const impersonation = (made.body as { token: string }).token;
    expect((await stack.gw.get("/api/v4/user", { token: impersonation })).status).toBe(200);
    const sudo = await stack.gw.get("/api/v4/user", { token: sudoer, headers: { Sudo: target.username } });
    expect((sudo.body as { id: number }).id).toBe(target.id);
    // A request of someone else's, made after, is recorded: by then the two above would have been.
    const witness = await signedInUser(stack);
    await stack.gw.get("/api/v4/user", { token: witness.secret });
    await waitFor("the witness's day", async () => (await lastActivityOn(witness.user.id)) === today());
    expect(await lastActivityOn(target.id)).toBeNull();
  });

  it("writes once a day per user, however many requests and gateways", async () => {
    const user = await createUser(stack);
    const actor = actorOf(user.id, user.username);
    const created = new Date(user.created_at as string);
    const { client, counted } = countingClient();
    const log = createLogger("test", "silent");
    // Two gateways' recorders sharing Redis, each seeing many requests, some at once.
    const gateways = [0, 1].map(() => new UserActivityRecorder(stack.redis, client, log, "canopy:"));
    await Promise.all(gateways.flatMap((g) => Array.from({ length: 10 }, () => g.record(actor, created))));
    for (const g of gateways) for (let i = 0; i < 5; i++) await g.record(actor, created);
    expect(counted.calls).toBe(1);
    expect(await lastActivityOn(user.id)).toBe(today());
    // A third gateway, started later the same day, does not write either.
    await new UserActivityRecorder(stack.redis, client, log, "canopy:").record(actor, created);
    expect(counted.calls).toBe(1);
  });

  it("the auth service writes the row only when the day changed", async () => {
    const user = await createUser(stack);
    const rpc = stack.authService.client(userActivity.UserActivityServiceService);
    const actor = actorOf(user.id, user.username);
    expect(await rpc.recordUserActivity({ actor })).toEqual({ written: true });
    expect(await rpc.recordUserActivity({ actor })).toEqual({ written: false });
    await stack.db.query("UPDATE auth.users SET last_activity_on = current_date - 1 WHERE id = $1", [
      user.id,
    ]);
    expect(await rpc.recordUserActivity({ actor })).toEqual({ written: true });
    expect(await lastActivityOn(user.id)).toBe(today());
  });

  it("a failed call leaves no key behind, so a later request records the day", async () => {
    const user = await createUser(stack);
    const actor = actorOf(user.id, user.username);
    const log = createLogger("test", "silent");
    const prefix = `${unique("act")}:`;
    const failing = { recordUserActivity: () => Promise.reject(new Error("auth is down")) };
    const down = new UserActivityRecorder(stack.redis, failing as never, log, prefix);
    const created = new Date(user.created_at as string);
    await down.record(actor, created);
    expect(await stack.redis.keys(`${prefix}activity:*`)).toEqual([]);
    const { client, counted } = countingClient();
    await new UserActivityRecorder(stack.redis, client, log, prefix).record(actor, created);
    expect(counted.calls).toBe(1);
    expect(await lastActivityOn(user.id)).toBe(today());
  });
});

describe("GET /user/activities", () => {
  it("lists users active since `from`, least recent first, paginated, in GitLab's entity", async () => {
    // Days long past, that no other test's users have: this test's users come first.
    const year = 1100 + Math.floor(Math.random() * 800);
    const users = [await createUser(stack), await createUser(stack), await createUser(stack)];
    const days = [`${year}-03-02`, `${year}-03-01`, `${year}-03-03`];
    for (const [i, u] of users.entries())
      await stack.db.query("UPDATE auth.users SET last_activity_on = $2 WHERE id = $1", [u.id, days[i]]);
    const res = await stack.gw.get(`/api/v4/user/activities?from=${year}-03-01&per_page=3`, {
      token: adminToken,
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: [
        { username: users[1]!.username, last_activity_on: days[1], last_activity_at: days[1] },
        { username: users[0]!.username, last_activity_on: days[0], last_activity_at: days[0] },
        { username: users[2]!.username, last_activity_on: days[2], last_activity_at: days[2] },
      ],
    });
    expectJsonHeaders(res);
    expect(res.headers.get("x-per-page")).toBe("3");
    // From a date and time: a day counts from its start, so the 2nd at noon leaves out the 2nd.
    const later = await stack.gw.get(`/api/v4/user/activities?from=${year}-03-02T12:00:00Z&per_page=1`, {
      token: adminToken,
    });
    expect(later.body).toEqual([
      { username: users[2]!.username, last_activity_on: days[2], last_activity_at: days[2] },
    ]);
    const page2 = await stack.gw.get(`/api/v4/user/activities?from=${year}-03-01&per_page=1&page=2`, {
      token: adminToken,
    });
    expect((page2.body as { username: string }[])[0]!.username).toBe(users[0]!.username);
  });

  it("defaults `from` to six months ago", async () => {
    const [recent, old] = [await createUser(stack), await createUser(stack)];
    await stack.db.query("UPDATE auth.users SET last_activity_on = current_date - 30 WHERE id = $1", [
      recent.id,
    ]);
    await stack.db.query("UPDATE auth.users SET last_activity_on = current_date - 200 WHERE id = $1", [
      old.id,
    ]);
    const all: string[] = [];
    for (let page = 1; ; page++) {
      const res = await stack.gw.get(`/api/v4/user/activities?per_page=100&page=${page}`, {
        token: adminToken,
      });
      const batch = (res.body as { username: string }[]).map((a) => a.username);
      all.push(...batch);
      if (batch.length < 100) break;
    }
    expect(all).toContain(recent.username);
    expect(all).not.toContain(old.username);
  });

  it("refuses a bad `from` with 400, anonymous with 401 and non-admins with 403", async () => {
    for (const from of [
      "yesterday",
      "2026-13-01",
      "2026-02-30x",
      "'; DROP TABLE users; --",
      "２０２６-01-01",
    ])
      expectError(
        await stack.gw.get(`/api/v4/user/activities?from=${encodeURIComponent(from)}`, { token: adminToken }),
        400,
        { error: "from is invalid" },
      );
    expectError(await stack.gw.get("/api/v4/user/activities"), 401, UNAUTHORIZED);
    const user = await signedInUser(stack);
    expectError(await stack.gw.get("/api/v4/user/activities", { token: user.secret }), 403, FORBIDDEN);
  });
});
