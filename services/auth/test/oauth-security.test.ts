import type { common } from "@canopy/protos";
import {
  INVALID_GRANT,
  INVALID_SCOPE,
  PASSWORD,
  PROVED,
  REDIRECT,
  codeFor,
  err,
  exchange,
  newApp,
  newUser,
  redirectParams,
  startOAuthHarness,
  tokensFor,
  type App,
  type OAuthHarness,
} from "./oauth-support";
import { failed, failure, status } from "./support";
import { changeUserState, UserStateAction } from "./support";

// Regression tests for the OAuth defects a security test of the running stack found: blocked users'
// tokens and codes, the administrators' scopes (sudo, admin_mode), applications without scopes,
// client_credentials for public clients, and OIDC prompt=none.
let h: OAuthHarness;
let a: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  a = await newApp(h, { scopes: ["api", "read_user", "sudo", "admin_mode", "openid"] });
});
afterAll(() => h.stop());

const block = (id: number) =>
  changeUserState(h.service, h.admin, id, UserStateAction.USER_STATE_ACTION_BLOCK);
const introspect = (token: string) => h.oauth.introspect({ token, client: a.client() });

describe("a blocked user", () => {
  it("has tokens that introspect as inactive (RFC 7662 §2.2), access and refresh alike", async () => {
    const { user, actor } = await newUser(h);
    const pair = await tokensFor(h, a, actor);
    expect((await introspect(pair.accessToken)).active).toBe(true);
    await block(user.id);
    expect(await introspect(pair.accessToken)).toMatchObject({
      ...PROVED,
      active: false,
      sub: "",
      scope: "",
    });
    expect((await introspect(pair.refreshToken)).active).toBe(false);
  });

  it("cannot use a token as the bearer that authorizes an introspection", async () => {
    const { user, actor } = await newUser(h);
    const bearer = await tokensFor(h, a, actor);
    const other = await tokensFor(h, a, (await newUser(h)).actor);
    await block(user.id);
    const answer = await h.oauth.introspect({ token: other.accessToken, bearerToken: bearer.accessToken });
    expect(answer.error?.error).toBe("invalid_token");
  });

  it("gets invalid_grant for a code issued before the block", async () => {
    const { user, actor } = await newUser(h);
    const code = await codeFor(h, a, actor);
    await block(user.id);
    expect((await exchange(h, a, code)).error).toEqual(INVALID_GRANT);
  });
});

describe("sudo and admin_mode", () => {
  const authorize = (actor: common.Actor, scope: string) =>
    h.oauth.preAuthorize({
      actor,
      clientId: a.app.uid,
      redirectUri: REDIRECT,
      responseType: "code",
      scope,
      state: "s1",
    });

  it.each(["sudo", "admin_mode", "api sudo"])(
    "are refused at authorization to a non-administrator: %s",
    async (scope) => {
      const { actor } = await newUser(h);
      const answer = await authorize(actor, scope);
      expect(answer.error).toEqual(INVALID_SCOPE);
      expect(redirectParams(answer.errorRedirect)).toMatchObject({ error: "invalid_scope", state: "s1" });
    },
  );

  it("are granted to an administrator", async () => {
    expect((await authorize(h.admin, "api sudo admin_mode")).scopes).toEqual(["api", "sudo", "admin_mode"]);
  });

  it("are refused by the password grant to a non-administrator, even with an application of no scopes", async () => {
    const { user } = await newUser(h);
    const noScopes = await newApp(h, { scopes: ["api"] });
    await h.db.query("UPDATE oauth_applications SET scopes = '{}' WHERE id = $1", [noScopes.app.id]);
    for (const client of [undefined, noScopes.client()]) {
      const reply = await h.oauth.token({
        grantType: "password",
        client,
        username: user.username,
        password: PASSWORD,
        scope: "api sudo",
      });
      expect(reply.error).toEqual(INVALID_SCOPE);
    }
  });

  it("are refused to client_credentials, which has no user to be an administrator", async () => {
    const reply = await h.oauth.token({ grantType: "client_credentials", client: a.client(), scope: "sudo" });
    expect(reply.error).toEqual(INVALID_SCOPE);
  });

  it("are not exchanged or refreshed once the user is no longer an administrator", async () => {
    const { user, actor } = await newUser(h, { admin: true });
    const code = await codeFor(h, a, actor, { scope: "api sudo" });
    const pair = await tokensFor(h, a, actor, { scope: "api sudo" });
    await h.auth.updateUser({ actor: h.admin, id: user.id, attributes: { admin: false } });
    expect((await exchange(h, a, code)).error).toEqual(INVALID_SCOPE);
    const refresh = (scope = "") =>
      h.oauth.token({
        grantType: "refresh_token",
        client: a.client(),
        refreshToken: pair.refreshToken,
        scope,
      });
    expect((await refresh()).error).toEqual(INVALID_SCOPE);
    expect((await refresh("api")).scope).toBe("api");
  });
});

describe("applications", () => {
  it("cannot be created without scopes", async () => {
    const { actor } = await newUser(h);
    const call = h.oauth.createApplication({ actor, name: "App", redirectUri: REDIRECT, scopes: [] });
    expect(await failure(call)).toEqual(
      failed(status.INVALID_ARGUMENT, { fieldErrors: { scopes: ["can't be blank"] } }),
    );
  });

  it("that are public cannot use client_credentials (RFC 6749 §4.4)", async () => {
    const pub = await newApp(h, { confidential: false, scopes: ["api"] });
    const reply = await h.oauth.token({ grantType: "client_credentials", client: pub.client() });
    expect(reply.error).toEqual(
      err("unauthorized_client", "The client is not authorized to perform this request using this method."),
    );
    expect(reply.accessToken).toBe("");
  });
});

describe("prompt=none (OIDC Core §3.1.2.6)", () => {
  const silent = (actor: common.Actor | undefined, prompt = "none", app = a) =>
    h.oauth.preAuthorize({
      actor,
      clientId: app.app.uid,
      redirectUri: REDIRECT,
      responseType: "code",
      scope: "openid api",
      state: "st",
      prompt,
    });

  it("answers login_required to the client, with state, when nobody is signed in", async () => {
    const answer = await silent(undefined);
    expect(answer.error).toEqual(
      err("login_required", "The authorization server requires end-user authentication."),
    );
    expect(redirectParams(answer.errorRedirect)).toEqual({
      error: "login_required",
      error_description: "The authorization server requires end-user authentication.",
      state: "st",
    });
  });

  it("answers consent_required when the user would be asked", async () => {
    const { actor } = await newUser(h);
    const answer = await silent(actor);
    expect(answer.error?.error).toBe("consent_required");
    expect(redirectParams(answer.errorRedirect)).toMatchObject({ error: "consent_required", state: "st" });
  });

  it("goes ahead without a page when no consent is needed", async () => {
    const trusted = await newApp(h, { trusted: true, scopes: ["api", "openid"] });
    const answer = await silent((await newUser(h)).actor, "none", trusted);
    expect(answer.error).toBeUndefined();
    expect(answer.skipConsent).toBe(true);
  });

  it("is invalid_request beside another prompt, and an unknown prompt too", async () => {
    const { actor } = await newUser(h);
    expect((await silent(actor, "none login")).error?.error).toBe("invalid_request");
    expect((await silent(actor, "sometimes")).error?.error).toBe("invalid_request");
  });

  it("still needs a signed-in user for every other prompt", async () => {
    expect((await failure(silent(undefined, ""))).code).toBe(status.UNAUTHENTICATED);
  });
});
