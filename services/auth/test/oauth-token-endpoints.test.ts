import { auth, type common, type oauth } from "@canopy/protos";
import {
  E,
  INVALID_CLIENT,
  INVALID_GRANT,
  PASSWORD,
  ageToken,
  codeFor,
  err,
  exchange,
  newApp,
  newUser,
  pkce,
  refusalOf,
  startOAuthHarness,
  tokensFor,
  type App,
  type OAuthHarness,
  PROVED,
} from "./oauth-support";
import { changeUserState, UserStateAction } from "./support";

// The companions of /oauth/token: /oauth/token/info, /oauth/revoke (RFC 7009) and /oauth/introspect
// (RFC 7662), and Authenticate answering for OAuth access tokens.
let h: OAuthHarness;
let user: common.Actor;
let a: App;
let b: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  user = (await newUser(h)).actor;
  a = await newApp(h, { scopes: ["api", "read_user"] });
  b = await newApp(h, { scopes: ["api"] });
  publicApp = await newApp(h, { scopes: ["api"], confidential: false });
});
afterAll(() => h.stop());

const INVALID_TOKEN = err("invalid_token", E.invalidToken);
const NOT_YOURS = err("unauthorized_client", E.notYours);
const pair = () => tokensFor(h, a, user, { scope: "api read_user" });
const infoError = async (token: string) => (await h.oauth.tokenInfo({ token })).error;
const revokedAt = async (token: string) => (await refusalOf(h, token)) === auth.Refusal.REFUSAL_REVOKED;

describe("TokenInfo", () => {
  it("describes a live token, and its expires_in counts down", async () => {
    const p = await pair();
    expect(await h.oauth.tokenInfo({ token: p.accessToken })).toEqual({
      resourceOwnerId: user.userId,
      scopes: ["api", "read_user"],
      expiresIn: expect.any(Number),
      applicationUid: a.app.uid,
      createdAt: p.createdAt,
    });
    expect((await h.oauth.tokenInfo({ token: p.accessToken })).expiresIn).toBeGreaterThanOrEqual(7199);
    await ageToken(h, p.accessToken, 100);
    const later = await h.oauth.tokenInfo({ token: p.accessToken });
    expect(later.expiresIn).toBeGreaterThanOrEqual(7099);
    expect(later.expiresIn).toBeLessThanOrEqual(7100);
  });

  it.each([
    ["an unknown token", async () => "d".repeat(64)],
    ["an empty token", async () => ""],
    ["a personal access token", async () => "glpat-aaaaaaaaaaaaaaaaaaaaaaaa"],
    ["an expired token", async () => (await pair()).accessToken],
  ])("says invalid_token, without the reason, for %s", async (what, tokenOf) => {
    const token = await tokenOf();
    if (what === "an expired token") await ageToken(h, token, 7200);
    expect(await infoError(token)).toEqual(INVALID_TOKEN);
  });

  it("says invalid_token for a revoked token", async () => {
    const p = await pair();
    await h.oauth.revoke({ token: p.accessToken, client: a.client() });
    expect(await infoError(p.accessToken)).toEqual(INVALID_TOKEN);
  });
});

describe("Authenticate with OAuth access tokens", () => {
  it("refuses an expired token as expired, even when it is also revoked (expiry first)", async () => {
    const p = await pair();
    await ageToken(h, p.accessToken, 7200);
    expect(await refusalOf(h, p.accessToken)).toBe(auth.Refusal.REFUSAL_EXPIRED);
    await h.oauth.revoke({ token: p.refreshToken, tokenTypeHint: "refresh_token", client: a.client() });
    expect(await refusalOf(h, p.accessToken)).toBe(auth.Refusal.REFUSAL_EXPIRED);
  });

  it("refuses a revoked token as revoked, and a blocked user's token as blocked", async () => {
    const p = await pair();
    await h.oauth.revoke({ token: p.accessToken, client: a.client() });
    expect(await refusalOf(h, p.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
    const { user: owner, actor } = await newUser(h);
    const q = await tokensFor(h, a, actor);
    await changeUserState(h.service, h.admin, owner.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    expect(await refusalOf(h, q.accessToken)).toBe(auth.Refusal.REFUSAL_USER_BLOCKED);
    expect(await infoError(q.accessToken)).toEqual(INVALID_TOKEN);
  });
});

describe("Revoke", () => {
  const revoke = (token: string, client?: oauth.ClientCredentials, tokenTypeHint = "") =>
    h.oauth.revoke({ token, client, tokenTypeHint });

  it("answers success for an unknown token, with or without a client", async () => {
    expect(await revoke("12345", a.client())).toEqual(PROVED);
    expect(await revoke("f".repeat(64))).toEqual({});
  });

  it("revokes its own application's token, the refresh token with it", async () => {
    const p = await pair();
    expect(await revoke(p.accessToken, a.client())).toEqual(PROVED);
    expect(await revokedAt(p.accessToken)).toBe(true);
    const refreshed = await h.oauth.token({
      grantType: "refresh_token",
      client: a.client(),
      refreshToken: p.refreshToken,
    });
    expect(refreshed.error).toEqual(INVALID_GRANT);
  });

  it("revokes the row of a refresh token, with the hint or without", async () => {
    for (const hint of ["refresh_token", ""]) {
      const p = await pair();
      expect(await revoke(p.refreshToken, a.client(), hint)).toEqual(PROVED);
      expect(await revokedAt(p.accessToken)).toBe(true);
    }
  });

  it("refuses another application's token, and a confidential application's token without a client", async () => {
    const p = await pair();
    expect(await revoke(p.accessToken, b.client())).toEqual({ ...PROVED, error: NOT_YOURS });
    expect(await revoke(p.refreshToken, b.client(), "refresh_token")).toEqual({
      ...PROVED,
      error: NOT_YOURS,
    });
    expect(await revoke(p.accessToken)).toEqual({ error: NOT_YOURS });
    expect(await refusalOf(h, p.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("refuses wrong client credentials as invalid_client", async () => {
    const p = await pair();
    expect(await revoke(p.accessToken, a.client({ secret: "gloas-bad" }))).toEqual({ error: INVALID_CLIENT });
    expect(await refusalOf(h, p.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("lets anyone holding it revoke a public application's token, or one of no application", async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(h, publicApp, user, { codeChallenge: challenge, codeChallengeMethod: "S256" });
    const client = publicApp.client({ secret: false });
    const token = (await exchange(h, publicApp, code, { client, codeVerifier: verifier })).accessToken;
    expect(await revoke(token)).toEqual({});
    expect(await revokedAt(token)).toBe(true);
    const password = await h.oauth.token({
      grantType: "password",
      username: user.username,
      password: PASSWORD,
    });
    expect(await revoke(password.accessToken)).toEqual({});
    expect(await revokedAt(password.accessToken)).toBe(true);
  });
});

describe("Introspect", () => {
  const REQUEST_NOT_AUTHORIZED =
    "Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.";
  const introspect = (token: string, auth: Partial<oauth.IntrospectRequest> = {}) =>
    h.oauth.introspect({ token, ...auth });
  const INACTIVE = {
    active: false,
    scope: "",
    clientId: "",
    username: "",
    tokenType: "",
    exp: 0,
    iat: 0,
    sub: "",
  };

  it("describes a live token to its application's client", async () => {
    const p = await pair();
    const answer = await introspect(p.accessToken, { client: a.client() });
    expect(answer).toEqual({
      ...PROVED,
      active: true,
      scope: "api read_user",
      clientId: a.app.uid,
      username: user.username,
      tokenType: "Bearer",
      iat: p.createdAt,
      exp: expect.any(Number),
      sub: String(user.userId),
    });
    expect(Math.abs(answer.exp - (p.createdAt + 7200))).toBeLessThanOrEqual(2);
  });

  it("accepts another live token of the same application as authorization, but not the token itself", async () => {
    const p = await pair();
    const q = await pair();
    expect((await introspect(p.accessToken, { bearerToken: q.accessToken })).active).toBe(true);
    expect(await introspect(p.accessToken, { bearerToken: p.accessToken })).toEqual({
      ...INACTIVE,
      error: INVALID_TOKEN,
    });
  });

  it("needs some authorization", async () => {
    const p = await pair();
    expect(await introspect(p.accessToken)).toEqual({
      ...INACTIVE,
      error: err("invalid_request", REQUEST_NOT_AUTHORIZED),
    });
    expect(await introspect(p.accessToken, { client: a.client({ secret: "gloas-x" }) })).toEqual({
      ...INACTIVE,
      error: INVALID_CLIENT,
    });
    expect(await introspect(p.accessToken, { bearerToken: "9".repeat(64) })).toEqual({
      ...INACTIVE,
      error: INVALID_TOKEN,
    });
  });

  it("says only active: false for another application's, a revoked, an expired or an unknown token", async () => {
    const p = await pair();
    expect(await introspect(p.accessToken, { client: b.client() })).toEqual({ ...INACTIVE, ...PROVED });
    const bToken = (await h.oauth.token({ grantType: "client_credentials", client: b.client() })).accessToken;
    expect(await introspect(p.accessToken, { bearerToken: bToken })).toEqual(INACTIVE);
    expect(await introspect("0".repeat(64), { client: a.client() })).toEqual({ ...INACTIVE, ...PROVED });
    const revoked = await pair();
    await h.oauth.revoke({ token: revoked.accessToken, client: a.client() });
    expect(await introspect(revoked.accessToken, { client: a.client() })).toEqual({ ...INACTIVE, ...PROVED });
    const expired = await pair();
    await ageToken(h, expired.accessToken, 7200);
    expect(await introspect(expired.accessToken, { client: a.client() })).toEqual({ ...INACTIVE, ...PROVED });
  });

  it("lets a bearer of no application look only at tokens of no application", async () => {
    const password = () =>
      h.oauth.token({ grantType: "password", username: user.username, password: PASSWORD });
    const [x, y] = [await password(), await password()];
    const p = await pair();
    expect((await introspect(x.accessToken, { bearerToken: y.accessToken })).active).toBe(true);
    expect(await introspect(p.accessToken, { bearerToken: y.accessToken })).toEqual(INACTIVE);
    const aToken = (await pair()).accessToken;
    expect(await introspect(x.accessToken, { bearerToken: aToken })).toEqual(INACTIVE);
  });
});
