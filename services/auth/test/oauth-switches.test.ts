import { auth, oauth, type common } from "@canopy/protos";
import {
  E,
  INVALID_CLIENT,
  INVALID_GRANT,
  PASSWORD,
  REDIRECT,
  codeFor,
  digestOf,
  err,
  exchange,
  newApp,
  newUser,
  refusalOf,
  startOAuthHarness,
  tokenRow,
  tokensFor,
  type App,
  type OAuthHarness,
} from "./oauth-support";

// The CANOPY_OAUTH_* switches that set the provider back to GitLab's behaviour (or tighten it),
// each on a second service instance over the same database.
let gitlab: OAuthHarness;
let strict: OAuthHarness;
beforeAll(async () => {
  [gitlab, strict] = await Promise.all([
    startOAuthHarness({
      CANOPY_OAUTH_REQUIRE_PKCE: "false",
      CANOPY_OAUTH_REVOKE_ON_CODE_REPLAY: "false",
      CANOPY_OAUTH_REFRESH_REUSE_DETECTION: "false",
      CANOPY_OAUTH_REFRESH_GRACE_SECONDS: "0",
      CANOPY_OAUTH_REFRESH_TOKEN_DAYS: "0",
    }),
    startOAuthHarness({
      CANOPY_OAUTH_ROPC_WITHOUT_CLIENT: "false",
      CANOPY_OAUTH_IMPLICIT_GRANT: "false",
      CANOPY_OAUTH_CODE_SECONDS: "60",
      CANOPY_SIGN_IN_MAX_ATTEMPTS: "3",
      CANOPY_SIGN_IN_LOCK_MINUTES: "2",
    }),
  ]);
});
afterAll(() => Promise.all([gitlab?.stop(), strict?.stop()]));

describe("GitLab-compatible mode", () => {
  let user: common.Actor;
  let a: App;
  beforeAll(async () => {
    user = (await newUser(gitlab)).actor;
    a = await newApp(gitlab, { scopes: ["api", "read_user"] });
  });

  it("lets a public client run the code flow without PKCE, or with plain", async () => {
    const pub = await newApp(gitlab, { scopes: ["api"], confidential: false });
    const client = pub.client({ secret: false });
    const code = await codeFor(gitlab, pub, user);
    expect((await exchange(gitlab, pub, code, { client })).error).toBeUndefined();
    const verifier = "p".repeat(43);
    const plain = await codeFor(gitlab, pub, user, { codeChallenge: verifier, codeChallengeMethod: "plain" });
    expect((await exchange(gitlab, pub, plain, { client, codeVerifier: verifier })).error).toBeUndefined();
  });

  it("refuses a replayed code but leaves the first exchange's token alone", async () => {
    const code = await codeFor(gitlab, a, user);
    const first = await exchange(gitlab, a, code);
    expect((await exchange(gitlab, a, code)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(gitlab, first.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("refuses a reused refresh token without revoking its family, and has no grace window", async () => {
    const old = await tokensFor(gitlab, a, user);
    const refresh = (refreshToken: string) =>
      gitlab.oauth.token({ grantType: "refresh_token", client: a.client(), refreshToken });
    const fresh = await refresh(old.refreshToken);
    expect(fresh.error).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await refresh(old.refreshToken)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(gitlab, fresh.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect((await tokenRow(gitlab, fresh.accessToken))!.revoked_at).toBeNull();
    expect((await refresh(fresh.refreshToken)).error).toBeUndefined();
  });

  it("issues refresh tokens that never expire", async () => {
    const pair = await tokensFor(gitlab, a, user);
    const { rows } = await gitlab.db.query(
      "SELECT refresh_expires_at FROM auth.oauth_tokens WHERE refresh_digest = $1",
      [digestOf(gitlab, pair.refreshToken)],
    );
    expect(rows).toEqual([{ refresh_expires_at: null }]);
  });
});

describe("Stricter switches", () => {
  let username: string;
  let pub: App;
  beforeAll(async () => {
    username = (await newUser(strict)).user.username;
    pub = await newApp(strict, { scopes: ["api"], confidential: false });
  });

  it("refuses the password grant without a client when ROPC_WITHOUT_CLIENT is off", async () => {
    const grant = (client?: oauth.ClientCredentials) =>
      strict.oauth.token({ grantType: "password", username, password: PASSWORD, client });
    expect((await grant()).error).toEqual(INVALID_CLIENT);
    expect((await grant(pub.client({ secret: false }))).error).toBeUndefined();
  });

  it("refuses revocation without a client when ROPC_WITHOUT_CLIENT is off, even of a public app's token", async () => {
    const token = (
      await strict.oauth.token({
        grantType: "password",
        username,
        password: PASSWORD,
        client: pub.client({ secret: false }),
      })
    ).accessToken;
    const notYours = { error: err("unauthorized_client", E.notYours) };
    expect(await strict.oauth.revoke({ token })).toEqual(notYours);
    expect(await strict.oauth.revoke({ token: "7".repeat(64) })).toEqual(notYours);
    expect(await refusalOf(strict, token)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect(await strict.oauth.revoke({ token, client: pub.client({ secret: false }) })).toEqual({});
    expect(await refusalOf(strict, token)).toBe(auth.Refusal.REFUSAL_REVOKED);
  });

  it("refuses response_type=token when the implicit grant is off", async () => {
    const user = (await newUser(strict)).actor;
    const conf = await newApp(strict, { scopes: ["api"] });
    const answer = await strict.oauth.preAuthorize({
      actor: user,
      clientId: conf.app.uid,
      redirectUri: REDIRECT,
      responseType: "token",
      scope: "api",
    });
    expect(answer.error).toEqual(err("unsupported_response_type", E.unsupportedResponseType));
  });

  it("gives codes CANOPY_OAUTH_CODE_SECONDS to live", async () => {
    const user = (await newUser(strict)).actor;
    const conf = await newApp(strict, { scopes: ["api"] });
    const code = await codeFor(strict, conf, user);
    const { rows } = await strict.db.query(
      "SELECT extract(epoch FROM expires_at - created_at)::int AS life FROM auth.oauth_grants WHERE code_digest = $1",
      [digestOf(strict, code)],
    );
    expect(rows[0].life).toBe(60);
  });

  it("locks after CANOPY_SIGN_IN_MAX_ATTEMPTS failures for CANOPY_SIGN_IN_LOCK_MINUTES", async () => {
    const { user } = await newUser(strict);
    const signIn = (password: string) => strict.oauth.signIn({ login: user.username, password });
    expect((await signIn("wrong")).refusal).toBe(oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID);
    expect((await signIn("wrong")).refusal).toBe(oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID);
    expect((await signIn("wrong")).refusal).toBe(oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED);
    const locked = await signIn(PASSWORD);
    expect(locked.refusal).toBe(oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED);
    const minutes = (locked.lockedUntil!.getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(1.5);
    expect(minutes).toBeLessThanOrEqual(2);
  });
});
