import { auth, type common, type oauth } from "@canopy/protos";
import {
  E,
  EXTERNAL_URL,
  HEX64,
  OOB_URI,
  REDIRECT,
  digestOf,
  err,
  exchange,
  newApp,
  newUser,
  pkce,
  redirectParams,
  refusalOf,
  startOAuthHarness,
  tokensFor,
  type App,
  type OAuthHarness,
} from "./oauth-support";

// GET/POST/DELETE /oauth/authorize when the request is good: what the consent page shows, when consent
// is skipped, and where the browser goes after the user's answer (code, implicit token, denial).
let h: OAuthHarness;
let user: common.Actor;
let confidential: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  user = (await newUser(h)).actor;
  confidential = await newApp(h, { scopes: ["api", "read_user", "openid"] });
  publicApp = await newApp(h, { scopes: ["api", "read_user"], confidential: false });
});
afterAll(() => h.stop());

const request = (a: App, fields: Partial<oauth.AuthorizeRequest> = {}) => ({
  actor: user,
  clientId: a.app.uid,
  redirectUri: REDIRECT,
  responseType: "code",
  scope: "api",
  state: "st-1",
  ...fields,
});
const pre = (a: App, fields: Partial<oauth.AuthorizeRequest> = {}) =>
  h.oauth.preAuthorize(request(a, fields));

const sentBack = (error: string, description: string) => ({
  error,
  error_description: description,
  state: "st-1",
});

describe("PreAuthorize: success", () => {
  it("answers the application, its owner and the effective scopes", async () => {
    const owner = await newUser(h, { name: "Owner Person" });
    const a = await newApp(h, { owner: owner.actor, scopes: ["api", "read_user"] });
    const answer = await pre(a, { scope: "read_user api" });
    expect(answer).toEqual({
      application: a.app,
      ownerName: "Owner Person",
      scopes: ["read_user", "api"],
      skipConsent: false,
      errorRedirect: "",
    });
  });

  it("applies the default scope api only when the application has it, or has no scopes at all", async () => {
    expect((await pre(confidential, { scope: "" })).scopes).toEqual(["api"]);
    const noApi = await newApp(h, { scopes: ["read_user"] });
    const answer = await pre(noApi, { scope: "" });
    expect(answer.error).toEqual(err("invalid_scope", E.invalidScope));
    // Applications can no longer be registered without scopes; rows from before may still have none.
    const none = await newApp(h, { scopes: ["read_user"] });
    await h.db.query("UPDATE oauth_applications SET scopes = '{}' WHERE id = $1", [none.app.id]);
    expect((await pre(none, { scope: "" })).scopes).toEqual(["api"]);
  });
});

describe("PreAuthorize: skip_consent", () => {
  it("skips consent for a trusted application (an administrator's choice)", async () => {
    const trusted = await newApp(h, { trusted: true, scopes: ["api"] });
    expect(trusted.app.trusted).toBe(true);
    expect((await pre(trusted)).skipConsent).toBe(true);
  });

  it("skips it for a confidential application already granted exactly these scopes, until revoked", async () => {
    const a = await newApp(h, { scopes: ["api", "read_user"] });
    const { actor } = await newUser(h);
    const ask = async (scope: string) => (await pre(a, { actor, scope })).skipConsent;
    expect(await ask("api")).toBe(false);
    const pair = await tokensFor(h, a, actor, { scope: "api" });
    expect(await ask("api")).toBe(true);
    expect(await ask("api read_user")).toBe(false);
    expect(await ask("read_user")).toBe(false);
    expect((await pre(a, { scope: "api" })).skipConsent).toBe(false); // another user
    await h.oauth.revoke({ token: pair.accessToken, client: a.client() });
    expect(await ask("api")).toBe(false);
  });

  it("never skips it for a public application", async () => {
    const { actor } = await newUser(h);
    const { verifier, challenge: c } = pkce();
    const code = new URL(
      (
        await h.oauth.authorize({
          ...request(publicApp, { actor, codeChallenge: c, codeChallengeMethod: "S256" }),
          approved: true,
        })
      ).redirect,
    ).searchParams.get("code")!;
    const pair = await h.oauth.token({
      grantType: "authorization_code",
      client: publicApp.client({ secret: false }),
      code,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    expect(pair.error).toBeUndefined();
    expect((await pre(publicApp, { actor, codeChallenge: c, codeChallengeMethod: "S256" })).skipConsent).toBe(
      false,
    );
  });
});

describe("Authorize", () => {
  it("sends a denial back as access_denied with state", async () => {
    const answer = await h.oauth.authorize({ ...request(confidential), approved: false });
    expect(redirectParams(answer.redirect)).toEqual(sentBack("access_denied", E.accessDenied));
  });

  it("sends an approval back with a 64-hex code and state, keeping the registered URI's query", async () => {
    const withQuery = `${REDIRECT}?tenant=7`;
    const a = await newApp(h, { redirectUri: withQuery, scopes: ["api"] });
    const answer = await h.oauth.authorize({ ...request(a, { redirectUri: withQuery }), approved: true });
    expect(answer.error).toBeUndefined();
    const params = redirectParams(answer.redirect);
    expect(params).toEqual({ tenant: "7", code: expect.stringMatching(HEX64), state: "st-1" });
    // Only a digest of the code is stored.
    const stored = (code: string) =>
      h.db.query("SELECT 1 FROM auth.oauth_grants WHERE code_digest = $1", [code]).then((r) => r.rowCount);
    expect(await stored(params.code!)).toBe(0);
    expect(await stored(digestOf(h, params.code!))).toBe(1);
  });

  it("puts the code in the fragment for response_mode=fragment", async () => {
    const answer = await h.oauth.authorize({
      ...request(confidential, { responseMode: "fragment" }),
      approved: true,
    });
    expect(redirectParams(answer.redirect, true)).toEqual({
      code: expect.stringMatching(HEX64),
      state: "st-1",
    });
  });

  it("answers the implicit grant in the fragment: a live Bearer token, no refresh token", async () => {
    const answer = await h.oauth.authorize({
      ...request(publicApp, { responseType: "token" }),
      approved: true,
    });
    const params = redirectParams(answer.redirect, true);
    expect(params).toEqual({
      access_token: expect.stringMatching(HEX64),
      token_type: "Bearer",
      expires_in: "7200",
      scope: "api",
      state: "st-1",
    });
    expect(await refusalOf(h, params.access_token!)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("sends an implicit denial in the fragment too", async () => {
    const answer = await h.oauth.authorize({
      ...request(publicApp, { responseType: "token" }),
      approved: false,
    });
    expect(redirectParams(answer.redirect, true)).toEqual(sentBack("access_denied", E.accessDenied));
  });

  it("refuses the implicit grant to a confidential application, in the fragment", async () => {
    const answer = await h.oauth.authorize({
      ...request(confidential, { responseType: "token" }),
      approved: true,
    });
    expect(answer.error?.error).toBe("unauthorized_client");
    expect(redirectParams(answer.redirect, true)).toEqual(
      sentBack(
        "unauthorized_client",
        "The client is not authorized to perform this request using this method.",
      ),
    );
  });

  it("shows the code of an out-of-band request on Canopy's own page; errors never leave", async () => {
    const a = await newApp(h, { redirectUri: OOB_URI, scopes: ["api"] });
    const oob = request(a, { redirectUri: OOB_URI });
    const answer = await h.oauth.authorize({ ...oob, approved: true });
    const url = new URL(answer.redirect);
    expect(`${url.origin}${url.pathname}`).toBe(`${EXTERNAL_URL}/oauth/authorize/native`);
    const code = url.searchParams.get("code")!;
    expect(code).toMatch(HEX64);
    expect((await exchange(h, a, code, { redirectUri: OOB_URI })).error).toBeUndefined();
    const denied = await h.oauth.authorize({ ...oob, approved: false });
    expect(denied).toEqual({ error: err("access_denied", E.accessDenied), redirect: "" });
    const badScope = await pre(a, { redirectUri: OOB_URI, scope: "sudo" });
    expect(badScope).toMatchObject({ error: err("invalid_scope", E.invalidScope), errorRedirect: "" });
  });
});
