import { auth, common, type oauth } from "@canopy/protos";
import {
  E,
  HEX64,
  INVALID_CLIENT,
  INVALID_GRANT,
  REDIRECT,
  codeFor,
  digestOf,
  err,
  exchange,
  missing,
  newApp,
  newUser,
  pkce,
  refusalOf,
  startOAuthHarness,
  type App,
  type OAuthHarness,
  PROVED,
} from "./oauth-support";

// POST /oauth/token with grant_type=authorization_code: every row of the reference's outcome table,
// PKCE (S256, plain, format, downgrade), single use, and replay revoking what the code produced.
let h: OAuthHarness;
let user: common.Actor;
let a: App;
let other: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  user = (await newUser(h)).actor;
  a = await newApp(h, { scopes: ["api", "read_user"] });
  other = await newApp(h, { scopes: ["api", "read_user"] });
  publicApp = await newApp(h, { scopes: ["api"], confidential: false });
});
afterAll(() => h.stop());

const expireCode = (code: string) =>
  h.db.query("UPDATE auth.oauth_grants SET expires_at = now() - interval '1 second' WHERE code_digest = $1", [
    digestOf(h, code),
  ]);

describe("Token: the grant type", () => {
  it.each([
    ["no grant_type", "", missing("grant_type")],
    ["an unknown grant_type", "magic", err("unsupported_grant_type", E.unsupportedGrantType)],
    [
      "grant_type=implicit (not a token grant)",
      "implicit",
      err("unsupported_grant_type", E.unsupportedGrantType),
    ],
  ])("refuses %s", async (_what, grantType, error) => {
    const reply = await h.oauth.token({ grantType, client: a.client() });
    expect(reply).toEqual({
      ...PROVED,
      error,
      accessToken: "",
      tokenType: "",
      expiresIn: 0,
      refreshToken: "",
      scope: "",
      createdAt: 0,
      idToken: "",
    });
  });
});

describe("authorization_code: refusals", () => {
  const cases: [string, (code: string) => Partial<oauth.TokenRequest>, oauth.OAuthError][] = [
    ["no code", () => ({ code: "" }), missing("code")],
    ["no redirect_uri", () => ({ redirectUri: "" }), missing("redirect_uri")],
    ["no client credentials", () => ({ client: undefined }), INVALID_CLIENT],
    [
      "an unknown client",
      () => ({ client: { clientId: "0".repeat(64), clientSecret: "x", method: "post" } }),
      INVALID_CLIENT,
    ],
    ["a wrong secret", () => ({ client: a.client({ secret: "gloas-wrong" }) }), INVALID_CLIENT],
    [
      "a confidential client without its secret",
      () => ({ client: a.client({ secret: false }) }),
      INVALID_CLIENT,
    ],
    ["an unknown code", () => ({ code: "a".repeat(64) }), INVALID_GRANT],
    ["another client's code", () => ({ client: other.client() }), INVALID_GRANT],
    ["a different redirect_uri", () => ({ redirectUri: `${REDIRECT}/other` }), INVALID_GRANT],
    [
      "a code_verifier for a code issued without a challenge (downgrade)",
      () => ({ codeVerifier: pkce().verifier }),
      INVALID_GRANT,
    ],
  ];
  it.each(cases)("refuses %s, and the code still works for its client", async (_what, change, error) => {
    const code = await codeFor(h, a, user);
    expect((await exchange(h, a, code, change(code))).error).toEqual(error);
    const ok = await exchange(h, a, code);
    expect(ok.error).toBeUndefined();
  });

  it("refuses an expired code (600 s)", async () => {
    const code = await codeFor(h, a, user);
    const { rows } = await h.db.query(
      "SELECT extract(epoch FROM expires_at - created_at)::int AS life FROM auth.oauth_grants WHERE code_digest = $1",
      [digestOf(h, code)],
    );
    expect(rows[0].life).toBe(600);
    await expireCode(code);
    expect((await exchange(h, a, code)).error).toEqual(INVALID_GRANT);
  });
});

describe("authorization_code: PKCE", () => {
  const withChallenge = async (app: App, method = "S256") => {
    const p = pkce();
    const codeChallenge = method === "S256" ? p.challenge : p.verifier;
    return { ...p, code: await codeFor(h, app, user, { codeChallenge, codeChallengeMethod: method }) };
  };

  it("accepts the right S256 verifier, from a public client with its client_id alone", async () => {
    const { code, verifier } = await withChallenge(publicApp);
    const reply = await exchange(h, publicApp, code, {
      client: publicApp.client({ secret: false }),
      codeVerifier: verifier,
    });
    expect(reply.error).toBeUndefined();
    expect(reply.refreshToken).toMatch(HEX64);
  });

  it("refuses a public client that sends a wrong secret", async () => {
    const { code, verifier } = await withChallenge(publicApp);
    const client = publicApp.client({ secret: "gloas-not-the-secret" });
    expect((await exchange(h, publicApp, code, { client, codeVerifier: verifier })).error).toEqual(
      INVALID_CLIENT,
    );
  });

  it("asks for the verifier of a code issued with a challenge", async () => {
    const { code } = await withChallenge(a);
    expect((await exchange(h, a, code)).error).toEqual(missing("code_verifier"));
  });

  it.each([
    ["a wrong verifier", () => pkce().verifier],
    ["the challenge itself as the verifier", (p: { challenge: string }) => p.challenge],
  ])("refuses %s with invalid_grant", async (_what, verifierOf) => {
    const p = await withChallenge(a);
    expect((await exchange(h, a, p.code, { codeVerifier: verifierOf(p) })).error).toEqual(INVALID_GRANT);
  });

  it("checks the verifier's format even when its hash matches", async () => {
    for (const verifier of ["a".repeat(42), "a".repeat(129), `${"a".repeat(50)} b`]) {
      const challenge = pkce(verifier).challenge;
      const code = await codeFor(h, a, user, { codeChallenge: challenge, codeChallengeMethod: "S256" });
      expect((await exchange(h, a, code, { codeVerifier: verifier })).error).toEqual(INVALID_GRANT);
    }
    const ok = pkce("b".repeat(43));
    const code = await codeFor(h, a, user, { codeChallenge: ok.challenge, codeChallengeMethod: "S256" });
    expect((await exchange(h, a, code, { codeVerifier: ok.verifier })).error).toBeUndefined();
  });

  it("accepts plain for a confidential client", async () => {
    const { code, verifier } = await withChallenge(a, "plain");
    expect((await exchange(h, a, code, { codeVerifier: verifier })).error).toBeUndefined();
  });
});

describe("authorization_code: success", () => {
  it("answers GitLab's token response and the token authenticates as the user's OAuth token", async () => {
    const before = Math.floor(Date.now() / 1000);
    const reply = await exchange(h, a, await codeFor(h, a, user, { scope: "read_user api" }));
    expect(reply).toEqual({
      ...PROVED,
      accessToken: expect.stringMatching(HEX64),
      tokenType: "Bearer",
      expiresIn: 7200,
      refreshToken: expect.stringMatching(HEX64),
      scope: "read_user api",
      createdAt: expect.any(Number),
      idToken: "",
    });
    expect(reply.createdAt).toBeGreaterThanOrEqual(before - 1);
    expect(reply.createdAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const answer = await h.auth.authenticate({ token: reply.accessToken });
    expect(answer.actor).toEqual({
      userId: user.userId,
      username: user.username,
      admin: false,
      external: false,
      scopes: ["read_user", "api"],
      tokenKind: common.TokenKind.TOKEN_KIND_OAUTH,
      tokenId: expect.any(Number),
      impersonatorId: 0,
    });
    expect(answer.validUntil!.getTime() / 1000).toBeCloseTo(reply.createdAt + 7200, -1);
  });

  it("accepts HTTP Basic as well as post credentials", async () => {
    const reply = await exchange(h, a, await codeFor(h, a, user), {
      client: { ...a.client(), method: "basic" },
    });
    expect(reply.error).toBeUndefined();
  });
});

describe("authorization_code: single use", () => {
  it("refuses a replayed code and revokes every token issued from it, refreshed ones included", async () => {
    const code = await codeFor(h, a, user);
    const first = await exchange(h, a, code);
    const refreshed = await h.oauth.token({
      grantType: "refresh_token",
      client: a.client(),
      refreshToken: first.refreshToken,
    });
    expect(refreshed.error).toBeUndefined();
    expect(await refusalOf(h, refreshed.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect((await exchange(h, a, code)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, first.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
    expect(await refusalOf(h, refreshed.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
    const again = await h.oauth.token({
      grantType: "refresh_token",
      client: a.client(),
      refreshToken: refreshed.refreshToken,
    });
    expect(again.error).toEqual(INVALID_GRANT);
  });

  it("revokes on a replay even after the code expired", async () => {
    const code = await codeFor(h, a, user);
    const first = await exchange(h, a, code);
    await expireCode(code);
    expect((await exchange(h, a, code)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, first.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
  });

  it("does not let another client's replay revoke anything", async () => {
    const code = await codeFor(h, a, user);
    const first = await exchange(h, a, code);
    expect((await exchange(h, other, code, { client: other.client() })).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, first.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("lets exactly one of two concurrent exchanges win; the loser counts as a replay", async () => {
    const code = await codeFor(h, a, user);
    const replies = await Promise.all([exchange(h, a, code), exchange(h, a, code)]);
    const winners = replies.filter((r) => !r.error);
    expect(winners).toHaveLength(1);
    expect(replies.filter((r) => r.error)).toEqual([expect.objectContaining({ error: INVALID_GRANT })]);
    expect(await refusalOf(h, winners[0]!.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
  });
});
