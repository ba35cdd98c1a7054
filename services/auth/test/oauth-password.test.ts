import { auth, oauth } from "@canopy/protos";
import {
  HEX64,
  INVALID_CLIENT,
  INVALID_GRANT,
  INVALID_SCOPE,
  PASSWORD,
  newApp,
  newUser,
  refusalOf,
  startOAuthHarness,
  type App,
  type OAuthHarness,
} from "./oauth-support";
import { changeUserState, UserStateAction } from "./support";

// grant_type=password as GitLab allows it (client optional, but a sent client must authenticate;
// two-factor users refused), and the account lock that its failures share with the sign-in page.
let h: OAuthHarness;
let confidential: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  confidential = await newApp(h, { scopes: ["api", "read_user"] });
  publicApp = await newApp(h, { scopes: ["read_user"], confidential: false });
});
afterAll(() => h.stop());

const grant = (username: string, fields: Partial<oauth.TokenRequest> = {}) =>
  h.oauth.token({ grantType: "password", username, password: PASSWORD, ...fields });
const appOf = async (token: string) => (await h.oauth.tokenInfo({ token })).applicationUid;

describe("password grant: success", () => {
  it("needs no client: default scope api, a refresh token, a token of no application", async () => {
    const { user } = await newUser(h);
    const reply = await grant(user.username);
    expect(reply).toEqual({
      accessToken: expect.stringMatching(HEX64),
      tokenType: "Bearer",
      expiresIn: 7200,
      refreshToken: expect.stringMatching(HEX64),
      scope: "api",
      createdAt: expect.any(Number),
      idToken: "",
    });
    expect(await appOf(reply.accessToken)).toBe("");
    const { actor } = await h.auth.authenticate({ token: reply.accessToken });
    expect(actor).toMatchObject({ userId: user.id, scopes: ["api"] });
  });

  it("takes the email as the username, and any server scope when no client is sent", async () => {
    const { user } = await newUser(h);
    const reply = await grant(user.email.toUpperCase(), { scope: "read_user write_repository" });
    expect(reply.error).toBeUndefined();
    expect(reply.scope).toBe("read_user write_repository");
  });

  it("accepts a public client's client_id alone; the token belongs to that application", async () => {
    const { user } = await newUser(h);
    const reply = await grant(user.username, {
      client: publicApp.client({ secret: false }),
      scope: "read_user",
    });
    expect(reply.error).toBeUndefined();
    expect(await appOf(reply.accessToken)).toBe(publicApp.app.uid);
  });

  it("accepts a confidential client with its secret, defaulting to api when it has it", async () => {
    const { user } = await newUser(h);
    const reply = await grant(user.username, { client: confidential.client() });
    expect(reply.scope).toBe("api");
    expect(await appOf(reply.accessToken)).toBe(confidential.app.uid);
  });
});

describe("password grant: refusals", () => {
  let username: string;
  beforeAll(async () => {
    username = (await newUser(h)).user.username;
  });

  it.each([
    [
      "an unknown client_id",
      () => ({ client: { clientId: "c".repeat(64), clientSecret: "", method: "post" } }),
      INVALID_CLIENT,
    ],
    [
      "a confidential client without its secret",
      () => ({ client: confidential.client({ secret: false }) }),
      INVALID_CLIENT,
    ],
    [
      "a wrong client secret",
      () => ({ client: confidential.client({ secret: "gloas-wrong" }) }),
      INVALID_CLIENT,
    ],
    [
      "a public client with a wrong secret",
      () => ({ client: publicApp.client({ secret: "gloas-wrong" }) }),
      INVALID_CLIENT,
    ],
    [
      "a secret without a client_id",
      () => ({ client: { clientId: "", clientSecret: confidential.secret, method: "post" } }),
      INVALID_CLIENT,
    ],
    ["a wrong password", () => ({ password: "not-the-password" }), INVALID_GRANT],
    ["no password", () => ({ password: "" }), INVALID_GRANT],
    ["no username", () => ({ username: "" }), INVALID_GRANT],
    ["an unknown user", () => ({ username: "nobody-at-all" }), INVALID_GRANT],
    ["an unknown scope", () => ({ scope: "api bogus" }), INVALID_SCOPE],
    [
      "a scope the client lacks",
      () => ({ client: publicApp.client({ secret: false }), scope: "api" }),
      INVALID_SCOPE,
    ],
    [
      "no scope, with a client that lacks api",
      () => ({ client: publicApp.client({ secret: false }) }),
      INVALID_SCOPE,
    ],
  ])("refuses %s", async (_what, change, error) => {
    const reply = await grant(username, change());
    expect(reply.error).toEqual(error);
    expect(reply.accessToken).toBe("");
  });

  it("refuses a user with two-factor authentication, even with the right password", async () => {
    const { user } = await newUser(h);
    // The flag alone, as enrolment leaves it (two-factor.test.ts enrols through the RPCs).
    const setTwoFactor = (on: boolean) =>
      h.db.query("UPDATE auth.users SET two_factor_enabled = $2 WHERE id = $1", [user.id, on]);
    await setTwoFactor(true);
    expect((await grant(user.username)).error).toEqual(INVALID_GRANT);
    await setTwoFactor(false);
    expect((await grant(user.username)).error).toBeUndefined();
  });

  it("refuses a blocked user", async () => {
    const { user } = await newUser(h);
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    expect((await grant(user.username)).error).toEqual(INVALID_GRANT);
  });
});

describe("sign-in lock shared with the password grant", () => {
  const R = oauth.SignInRefusal;

  it("locks the account for 10 minutes after 10 failures; then even the right password fails", async () => {
    const { user } = await newUser(h);
    for (let i = 0; i < 9; i++)
      expect((await grant(user.username, { password: "wrong" })).error).toEqual(INVALID_GRANT);
    const tenth = await h.oauth.signIn({ login: user.username, password: "wrong" });
    expect(tenth.refusal).toBe(R.SIGN_IN_REFUSAL_LOCKED);
    const right = await h.oauth.signIn({ login: user.username, password: PASSWORD });
    expect(right.refusal).toBe(R.SIGN_IN_REFUSAL_LOCKED);
    expect(right.user).toBeUndefined();
    const minutes = (right.lockedUntil!.getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9.5);
    expect(minutes).toBeLessThanOrEqual(10);
    expect((await grant(user.username)).error).toEqual(INVALID_GRANT);
    // Once the lock has passed, the right password works again.
    await h.db.query("UPDATE auth.users SET locked_until = now() - interval '1 second' WHERE id = $1", [
      user.id,
    ]);
    const later = await grant(user.username);
    expect(later.error).toBeUndefined();
    expect(await refusalOf(h, later.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("counts failures only until a success resets them", async () => {
    const { user } = await newUser(h);
    for (let i = 0; i < 9; i++) await h.oauth.signIn({ login: user.username, password: "wrong" });
    expect((await h.oauth.signIn({ login: user.username, password: PASSWORD })).refusal).toBe(
      R.SIGN_IN_REFUSAL_UNSPECIFIED,
    );
    const next = await h.oauth.signIn({ login: user.username, password: "wrong" });
    expect(next.refusal).toBe(R.SIGN_IN_REFUSAL_INVALID);
  });

  it("answers SignIn: the user on success, INVALID for unknown logins, BLOCKED for blocked users", async () => {
    const { user } = await newUser(h);
    const ok = await h.oauth.signIn({ login: user.email, password: PASSWORD });
    expect(ok.refusal).toBe(R.SIGN_IN_REFUSAL_UNSPECIFIED);
    expect(ok.user).toMatchObject({ id: user.id, username: user.username, lastSignInAt: expect.any(Date) });
    expect((await h.oauth.signIn({ login: "no-such-login", password: PASSWORD })).refusal).toBe(
      R.SIGN_IN_REFUSAL_INVALID,
    );
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    const blocked = await h.oauth.signIn({ login: user.username, password: PASSWORD });
    expect(blocked).toMatchObject({ refusal: R.SIGN_IN_REFUSAL_BLOCKED, user: undefined });
  });
});
