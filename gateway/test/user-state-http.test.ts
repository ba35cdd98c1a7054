/**
 * The user state actions (GitLab lib/api/users.rb, 17.5): POST /users/:id/block, unblock, ban,
 * unban, deactivate, activate, approve and reject. Each rule with GitLab's exact status and body,
 * and who may act (user-state-effects.test.ts: what a change does to tokens, copies and lists).
 * States no API call produces (LDAP-blocked, pending approval) are set in the database, as the
 * directory or a sign-up would.
 */
import {
  createUser,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  userRow,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
let plain: SignedIn;
beforeAll(async () => {
  stack = await startStack();
  plain = await signedInUser(stack);
}, 30_000);
afterAll(() => stack.stop());

const ACTIONS = ["block", "unblock", "ban", "unban", "deactivate", "activate", "approve", "reject"];
/** `token` null: anonymous. */
const post = (id: number, action: string, token: string | null = stack.rootToken, gw = stack.gw) =>
  gw.post(`/api/v4/users/${id}/${action}`, token === null ? {} : { token });
const stateOf = async (id: number) => (await userRow(stack, id))?.state;
/** A state no API call gives (the directory's block, a sign-up waiting for approval). */
const setState = (id: number, state: string) =>
  stack.db.query("UPDATE auth.users SET state = $2 WHERE id = $1", [id, state]);
const userIn = async (state: string) => {
  const u = await createUser(stack);
  if (state !== "active") await setState(u.id, state);
  return u;
};

async function expectAnswer(id: number, action: string, status: number, body: unknown) {
  const res = await post(id, action);
  expect({ status: res.status, body: res.text === "" ? undefined : JSON.parse(res.text) }).toEqual({
    status,
    body,
  });
  expectJsonHeaders(res);
}

describe("each rule, GitLab's answer, and the state after", () => {
  // [state before, action, status, body, state after]
  const cases: [string, string, number, unknown, string][] = [
    ["active", "block", 201, true, "blocked"],
    ["deactivated", "block", 201, true, "blocked"],
    ["blocked", "block", 201, null, "blocked"],
    ["banned", "block", 201, null, "banned"],
    ["blocked_pending_approval", "block", 201, null, "blocked_pending_approval"],
    [
      "ldap_blocked",
      "block",
      403,
      { message: "403 Forbidden - LDAP blocked users cannot be modified by the API" },
      "ldap_blocked",
    ],
    ["blocked", "unblock", 201, true, "active"],
    ["banned", "unblock", 201, true, "active"],
    ["blocked_pending_approval", "unblock", 201, true, "active"],
    ["active", "unblock", 201, false, "active"],
    [
      "ldap_blocked",
      "unblock",
      403,
      { message: "403 Forbidden - LDAP blocked users cannot be unblocked by the API" },
      "ldap_blocked",
    ],
    [
      "deactivated",
      "unblock",
      403,
      { message: "403 Forbidden - Deactivated users cannot be unblocked by the API" },
      "deactivated",
    ],
    ["active", "ban", 201, true, "banned"],
    ["blocked", "ban", 403, { message: "You cannot ban blocked users." }, "blocked"],
    ["banned", "ban", 403, { message: "You cannot ban banned users." }, "banned"],
    ["deactivated", "ban", 403, { message: "You cannot ban deactivated users." }, "deactivated"],
    ["banned", "unban", 201, true, "active"],
    ["active", "unban", 403, { message: "You cannot unban active users." }, "active"],
    ["blocked", "unban", 403, { message: "You cannot unban blocked users." }, "blocked"],
    ["active", "deactivate", 201, true, "deactivated"],
    ["deactivated", "deactivate", 201, null, "deactivated"],
    [
      "blocked",
      "deactivate",
      403,
      { message: "Error occurred. A blocked user cannot be deactivated" },
      "blocked",
    ],
    [
      "banned",
      "deactivate",
      403,
      { message: "Error occurred. A blocked user cannot be deactivated" },
      "banned",
    ],
    [
      "ldap_blocked",
      "deactivate",
      403,
      { message: "Error occurred. A blocked user cannot be deactivated" },
      "ldap_blocked",
    ],
    ["deactivated", "activate", 201, true, "active"],
    ["active", "activate", 201, false, "active"],
    [
      "blocked",
      "activate",
      403,
      { message: "403 Forbidden - A blocked user must be unblocked to be activated" },
      "blocked",
    ],
    [
      "ldap_blocked",
      "activate",
      403,
      { message: "403 Forbidden - A blocked user must be unblocked to be activated" },
      "ldap_blocked",
    ],
    ["blocked_pending_approval", "approve", 201, { message: "Success" }, "active"],
    [
      "active",
      "approve",
      409,
      { message: "The user you are trying to approve is not pending approval" },
      "active",
    ],
    [
      "deactivated",
      "approve",
      409,
      { message: "The user you are trying to approve is not pending approval" },
      "deactivated",
    ],
    [
      "blocked",
      "approve",
      409,
      { message: "The user you are trying to approve is not pending approval" },
      "blocked",
    ],
    ["active", "reject", 409, { message: "User does not have a pending request" }, "active"],
    ["banned", "reject", 409, { message: "User does not have a pending request" }, "banned"],
  ];
  test.each(cases)("%s user, %s: %i %j, then %s", async (before, action, status, body, after) => {
    const u = await userIn(before);
    await expectAnswer(u.id, action, status, body);
    expect(await stateOf(u.id)).toBe(after);
    const seen = await stack.gw.get(`/api/v4/users/${u.id}`, { token: stack.rootToken });
    expect(seen.body).toMatchObject({ state: after });
  });

  test("reject removes a user pending approval: 200 Success, then 404", async () => {
    const u = await userIn("blocked_pending_approval");
    await expectAnswer(u.id, "reject", 200, { message: "Success" });
    expect(await userRow(stack, u.id)).toBeUndefined();
    expectError(await stack.gw.get(`/api/v4/users/${u.id}`, { token: stack.rootToken }), 404, {
      message: "404 User Not Found",
    });
  });

  test("an administrator cannot block themself; a user active in the last 90 days cannot be deactivated", async () => {
    const admin = await signedInUser(stack, ["api"], { admin: true });
    const res = await post(admin.user.id, "block", admin.secret);
    expectError(res, 403, {
      message: "403 Forbidden - The API initiating user cannot be blocked by the API",
    });
    const recent = await createUser(stack);
    await stack.db.query("UPDATE auth.users SET last_activity_on = current_date - 89 WHERE id = $1", [
      recent.id,
    ]);
    await expectAnswer(recent.id, "deactivate", 403, {
      message:
        "The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated",
    });
    await stack.db.query(
      // The latest sign-in counts (GitLab's last_active_at reads current_sign_in_at), not the one before.
      "UPDATE auth.users SET current_sign_in_at = now() - interval '10 days', last_sign_in_at = now() - interval '200 days', last_activity_on = current_date - 200 WHERE id = $1",
      [recent.id],
    );
    await expectAnswer(recent.id, "deactivate", 403, {
      message:
        "The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated",
    });
    await stack.db.query(
      "UPDATE auth.users SET current_sign_in_at = now() - interval '91 days' WHERE id = $1",
      [recent.id],
    );
    await expectAnswer(recent.id, "deactivate", 201, true);
  });
});

describe("who may act", () => {
  test.each(ACTIONS)(
    "%s: anonymous 401; a user 403 (on themself too); missing user 404; bad id 400",
    async (action) => {
      const target = await createUser(stack);
      expectError(await post(target.id, action, null), 401, UNAUTHORIZED);
      // Approve and reject refuse in their service's words, after finding the user.
      const refused =
        action === "approve"
          ? { message: "You are not allowed to approve a user" }
          : action === "reject"
            ? { message: "You are not allowed to reject a user" }
            : FORBIDDEN;
      expectError(await post(target.id, action, plain.secret), 403, refused);
      expectError(await post(plain.user.id, action, plain.secret), 403, refused);
      expectError(await post(999_999_999, action), 404, { message: "404 User Not Found" });
      expect((await post(999_999_999, action, plain.secret)).status).toBe(
        action === "approve" || action === "reject" ? 404 : 403,
      );
      const bad = await stack.gw.post(`/api/v4/users/abc/${action}`, { token: stack.rootToken });
      // Canopy's id parameter check (as on every /users/:id route): a clear 400, nothing changed.
      expect(bad.status).toBe(400);
      const huge = await stack.gw.post(`/api/v4/users/${"9".repeat(40)}/${action}`, {
        token: stack.rootToken,
      });
      expect(huge.status).toBeGreaterThanOrEqual(400);
      expect(huge.status).toBeLessThan(500);
      expect(await stateOf(target.id)).toBe("active");
      expect(await stateOf(plain.user.id)).toBe("active");
    },
  );
});
