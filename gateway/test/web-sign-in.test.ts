/**
 * The sign-in and sign-out pages: sessions in Redis behind an HttpOnly cookie, a new session id on
 * sign-in, GitLab's refusal messages, the per-IP throttle, account locking and safe return paths.
 */
import { createHash } from "node:crypto";
import { createUser, PASSWORD, unique, type Stack } from "./support";
import {
  Browser,
  csrfTokenOf,
  expectHtmlPage,
  signInThrottleKey,
  startWebStack,
  WEB_GATEWAY,
} from "./web-support";

// Every sign-in verifies an argon2 hash; with the other suites running in parallel that adds up.
jest.setTimeout(30_000);

let stack: Stack;
beforeAll(async () => {
  stack = await startWebStack();
}, 30_000);
afterAll(() => stack.stop());

const sessionKey = (id: string) => `canopy:session:${createHash("sha256").update(id).digest("hex")}`;
const browser = () => new Browser(stack.gw);

test("the form has GitLab's labels, a CSRF token and a pre-auth session cookie", async () => {
  const b = browser();
  const page = await b.get("/users/sign_in");
  expectHtmlPage(page);
  expect(page.text).toContain('<label for="user_login">Username or email</label>');
  expect(page.text).toContain('<label for="user_password">Password</label>');
  expect(page.text).toContain('<button type="submit">Sign in</button>');
  expect(csrfTokenOf(page.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const cookie = page.headers.getSetCookie()[0]!;
  expect(cookie).toMatch(/^_canopy_session=[A-Za-z0-9_-]{43}; /);
  // The test stack's public URL is https, so the cookie is Secure.
  for (const attribute of ["Path=/", "HttpOnly", "SameSite=Lax", "Secure"])
    expect(cookie).toContain(attribute);
  // Redis holds a digest of the id, never the id itself.
  expect(await stack.redis.exists(sessionKey(b.session!))).toBe(1);
  expect(await stack.redis.exists(`canopy:session:${b.session}`)).toBe(0);
});

test("without LDAP configured: no LDAP tab, and no LDAP callback (404), as GitLab", async () => {
  const b = browser();
  const page = await b.get("/users/sign_in");
  expect(page.text).not.toContain("/users/auth/");
  expect(page.text).not.toContain("Standard");
  const res = await b.post("/users/auth/ldapmain/callback", { authenticity_token: csrfTokenOf(page.text) });
  expect(res.status).toBe(404);
});

test("signing in replaces the session id and goes to the applications page", async () => {
  const user = await createUser(stack);
  const b = browser();
  await b.get("/users/sign_in");
  const before = b.session!;
  const res = await b.signIn(user.username);
  expect(res.status).toBe(302);
  expect(res.location).toBe("/profile/applications");
  expect(b.session).toBeDefined();
  expect(b.session).not.toBe(before);
  expect(await stack.redis.exists(sessionKey(before))).toBe(0);
  const stored = JSON.parse((await stack.redis.get(sessionKey(b.session!)))!);
  expect(stored).toEqual({ userId: user.id, csrf: expect.any(String), signedInAt: expect.any(Number) });
  expect((await stack.redis.ttl(sessionKey(b.session!))) / 3600).toBeCloseTo(168, 0);

  const list = await b.get("/profile/applications");
  expectHtmlPage(list);
  const home = await b.get("/");
  expect(home.text).toContain(`Signed in as @${user.username}`);

  // Someone who planted the old id gets nothing from it.
  const planted = browser();
  planted.cookies.set("_canopy_session", before);
  expect((await planted.get("/profile/applications")).location).toBe("/users/sign_in");
  // Email works as the login too.
  expect((await browser().signIn(user.email)).location).toBe("/profile/applications");
});

test("a wrong password or unknown user re-renders the form with GitLab's message, keeping the login", async () => {
  const user = await createUser(stack);
  for (const login of [user.username, unique("nobody_")]) {
    const b = browser();
    const res = await b.signIn(login, "wrong-password-123");
    expectHtmlPage(res);
    expect(res.text).toContain("Invalid login or password.");
    expect(res.text).toContain(`value="${login}"`);
    expect(res.text).not.toContain("wrong-password-123");
    expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
  }
});

test("ten failures lock the account, even against the right password", async () => {
  const user = await createUser(stack);
  const b = browser();
  for (let i = 0; i < 10; i++) await b.signIn(user.username, `wrong-${i}`);
  const right = await b.signIn(user.username, PASSWORD);
  expect(right.status).toBe(200);
  expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
});

test("a locked account gets the same answer as an unknown login (no account enumeration)", async () => {
  const user = await createUser(stack);
  const b = browser();
  for (let i = 0; i < 10; i++) await b.signIn(user.username, `wrong-${i}`);
  // What differs between the two answers is only what was typed and the form's token.
  const answerOf = async (login: string) => {
    const page = await browser().signIn(login, PASSWORD);
    return {
      status: page.status,
      text: page.text.replace(csrfTokenOf(page.text), "").replace(login, "LOGIN"),
    };
  };
  const locked = await answerOf(user.username);
  const unknown = await answerOf(unique("nobody_"));
  expect(locked.text).toContain("Invalid login or password.");
  expect(locked.text).not.toContain("locked");
  expect(locked).toEqual(unknown);
});

test("a blocked user is refused, and a blocked user's session stops working", async () => {
  const user = await createUser(stack);
  const signedIn = browser();
  expect((await signedIn.signIn(user.username)).status).toBe(302);
  const block = await stack.gw.post(`/api/v4/users/${user.id}/block`, { token: stack.rootToken });
  expect(block.status).toBe(201);
  const res = await browser().signIn(user.username);
  expect(res.status).toBe(200);
  expect(res.text).toContain(
    "Your account has been blocked. Please contact your GitLab administrator if you think this is an error.",
  );
  expect((await signedIn.get("/profile/applications")).location).toBe("/users/sign_in");
});

test("a user pending approval is told so, but only after the right password", async () => {
  const user = await createUser(stack);
  await stack.db.query("UPDATE auth.users SET state = 'blocked_pending_approval' WHERE id = $1", [user.id]);
  const res = await browser().signIn(user.username);
  expect(res.status).toBe(200);
  expect(res.text).toContain(
    "Your account is pending approval from your GitLab administrator and hence blocked. Please contact your GitLab administrator if you think this is an error.",
  );
  expect(res.text).not.toContain("has been blocked");
  const wrong = await browser().signIn(user.username, "not-the-password");
  expect(wrong.text).toContain("Invalid login or password.");
  expect(wrong.text).not.toContain("pending approval");
});

describe("after sign-in, only paths on this site are followed", () => {
  const attempts = [
    "//evil.example",
    "https://evil.example",
    "/\\evil.example",
    "/.//evil.example",
    "/\t/evil.example",
  ];

  test.each(attempts)("return_to=%j ends at /profile/applications", async (target) => {
    const user = await createUser(stack);
    const b = browser();
    await b.get(`/users/sign_in?return_to=${encodeURIComponent(target)}`);
    expect((await b.signIn(user.username)).location).toBe("/profile/applications");
  });

  test.each(attempts)("a stored returnTo of %j ends at /profile/applications", async (target) => {
    const user = await createUser(stack);
    const b = browser();
    await b.get("/users/sign_in");
    // Whatever got into the session is checked again when it is used.
    const key = sessionKey(b.session!);
    const data = JSON.parse((await stack.redis.get(key))!);
    await stack.redis.set(key, JSON.stringify({ ...data, returnTo: target }), { EX: 600 });
    expect((await b.signIn(user.username)).location).toBe("/profile/applications");
  });

  test("a path on this site is followed", async () => {
    const user = await createUser(stack);
    const b = browser();
    await b.get("/users/sign_in?return_to=%2F-%2Fuser_settings%2Fapplications%3Fa%3D1");
    expect((await b.signIn(user.username)).location).toBe("/-/user_settings/applications?a=1");
  });
});

test("signing out needs the CSRF token, then ends the session", async () => {
  const user = await createUser(stack);
  const b = browser();
  await b.signIn(user.username);
  const id = b.session!;
  const confirm = await b.get("/users/sign_out");
  expectHtmlPage(confirm);
  expect(confirm.text).toContain('action="/users/sign_out"');

  const forged = await b.post("/users/sign_out");
  expectHtmlPage(forged, 422);
  expect(forged.text).toContain("Invalid authenticity token");
  expect((await b.get("/profile/applications")).status).toBe(200);

  const res = await b.post("/users/sign_out", { authenticity_token: csrfTokenOf(confirm.text) });
  expect(res.status).toBe(302);
  expect(res.location).toBe("/users/sign_in");
  expect(res.headers.getSetCookie()[0]).toMatch(/^_canopy_session=; .*Max-Age=0/);
  expect(await stack.redis.exists(sessionKey(id))).toBe(0);
  expect(b.session).toBeUndefined();
  expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
  expect((await b.get("/")).text).toContain("You are not signed in.");
});

test("sign-in attempts are throttled per IP: 429 after the configured number", async () => {
  const gw = await stack.addGateway({ ...WEB_GATEWAY, CANOPY_RATE_LIMIT_SIGN_IN: "3" });
  const b = new Browser(gw);
  await stack.redis.del(signInThrottleKey(b.ip));
  for (let i = 0; i < 3; i++) expect((await b.signIn("nobody", "wrong-password")).status).toBe(200);
  const throttled = await b.signIn("nobody", "wrong-password");
  expectHtmlPage(throttled, 429);
  expect(throttled.text).toContain("Retry later");
  expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(throttled.headers.get("ratelimit-name")).toBe("throttle_sign_in");
  // The form itself is not throttled; another address has its own budget.
  expect((await b.get("/users/sign_in")).status).toBe(200);
  expect((await new Browser(gw).signIn("nobody", "wrong-password")).status).toBe(200);
});

test("a deactivated user signing in on the web is active again (GitLab's welcome back); the password grant is not", async () => {
  const user = await createUser(stack);
  const token = await stack.gw.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
    token: stack.rootToken,
    json: { name: unique("t-"), scopes: ["api"] },
  });
  const secret = (token.body as { token: string }).token;
  expect(
    (await stack.gw.post(`/api/v4/users/${user.id}/deactivate`, { token: stack.rootToken })).status,
  ).toBe(201);
  expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(403);
  const grant = await stack.gw.post("/oauth/token", {
    form: { grant_type: "password", username: user.username, password: PASSWORD },
  });
  expect(grant.status).toBe(400);
  expect((await browser().signIn(user.username)).status).toBe(302);
  const seen = await stack.gw.get(`/api/v4/users/${user.id}`, { token: stack.rootToken });
  expect(seen.body).toMatchObject({ state: "active" });
  expect((await stack.gw.get("/api/v4/user", { token: secret })).status).toBe(200);
});
