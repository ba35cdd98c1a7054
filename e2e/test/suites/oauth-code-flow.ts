// Authorization code + PKCE as a certified client library runs it: openid-client discovers the
// provider, builds the authorization URL, Chromium signs in and consents, openid-client exchanges the
// code and validates the ID token against the JWKS; then userinfo, introspection, refresh, revocation.
import { generators, type BaseClient, type TokenSet } from "openid-client";
import { call, PROPAGATION_MS, within } from "../support/api";
import { heading, screenshot, signIn } from "../support/browser";
import { answer, decodeJwt, INVALID_TOKEN_INFO, REVOKED, withBearer } from "../support/oauth-http";
import type { OAuthWorld, RegisteredApp } from "../support/oauth-world";
import type { Session } from "../support/session";

const SCOPE = "openid profile email api";

export function oauthCodeFlow(session: Session, world: OAuthWorld) {
  describe("OAuth code + PKCE with openid-client, consent in Chromium", () => {
    let client: BaseClient;
    let app: RegisteredApp;
    let tokens: TokenSet;
    let refreshed: TokenSet;
    const nonce = generators.nonce();

    beforeAll(async () => {
      app = world.app("confidential");
      const issuer = await world.issuer();
      const listener = await world.listener();
      client = new issuer.Client({
        client_id: app.clientId,
        client_secret: app.secret,
        redirect_uris: [listener.redirectUri],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      });
    });

    it("discovery names this stack as issuer and its endpoints", async () => {
      const { url } = session.stack;
      const { metadata } = await world.issuer();
      expect(metadata).toMatchObject({
        issuer: url,
        authorization_endpoint: `${url}/oauth/authorize`,
        token_endpoint: `${url}/oauth/token`,
        userinfo_endpoint: `${url}/oauth/userinfo`,
        jwks_uri: `${url}/oauth/discovery/keys`,
        revocation_endpoint: `${url}/oauth/revoke`,
        introspection_endpoint: `${url}/oauth/introspect`,
        id_token_signing_alg_values_supported: ["RS256"],
      });
      expect(metadata.code_challenge_methods_supported).toContain("S256");
    });

    it("sign-in, consent, Authorize: the listener gets code and state; the ID token validates", async () => {
      const { url } = session.stack;
      const user = await world.user();
      const listener = await world.listener();
      const verifier = generators.codeVerifier();
      const state = generators.state();
      const authUrl = client.authorizationUrl({
        scope: SCOPE,
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      const callback = await world.withPage(async (page) => {
        await page.goto(authUrl);
        expect(new URL(page.url()).pathname).toBe("/users/sign_in");
        await signIn(page, user.username, user.password);
        await world.rememberUser(page);
        expect(new URL(page.url()).pathname).toBe("/oauth/authorize");
        await heading(page, "Authorize application");
        const text = await page.locator("main").innerText();
        expect(text).toContain(`${app.name} is requesting access to your account`);
        for (const scope of SCOPE.split(" ")) expect(text).toContain(`${scope}:`);
        expect(text).toContain(`@${user.username}`);
        await screenshot(page, "consent");
        await page.getByRole("button", { name: "Authorize", exact: true }).click();
        const hit = await listener.callbackFor(state);
        await page.waitForURL((u) => u.origin === listener.origin);
        expect(await page.locator("body").innerText()).toBe("ok");
        return hit;
      });
      expect(callback.searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);

      const params = client.callbackParams(callback.toString());
      tokens = await client.callback(listener.redirectUri, params, { code_verifier: verifier, state, nonce });
      for (const t of [tokens.access_token!, tokens.refresh_token!]) session.secrets.add(t);
      expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 7200, scope: expect.any(String) });
      expect(tokens.scope!.split(" ").sort()).toEqual(SCOPE.split(" ").sort());
      // openid-client has checked signature (JWKS), iss, aud, exp, iat and nonce; these are the values.
      const claims = tokens.claims();
      expect(claims).toMatchObject({ iss: url, aud: app.clientId, sub: String(user.id), nonce });
      expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
      expect(claims.preferred_username ?? claims.nickname).toBe(user.username);
      const keys = (await call(url, "/oauth/discovery/keys")).json as { keys: { kid: string }[] };
      expect(keys.keys.map((k) => k.kid)).toContain(decodeJwt(tokens.id_token!).header.kid);
    });

    it("the access token answers /api/v4/user, userinfo, introspection and /oauth/token/info", async () => {
      const { url } = session.stack;
      const user = await world.user();
      const me = await withBearer(url, "/api/v4/user", tokens.access_token!);
      expect(answer(me)).toMatchObject({ status: 200, body: { id: user.id, username: user.username } });

      const info = await client.userinfo(tokens);
      expect(info).toMatchObject({ sub: String(user.id), email: `${user.username}@example.com` });

      const introspected = await client.introspect(tokens.access_token!);
      expect(introspected).toMatchObject({ active: true, client_id: app.clientId, token_type: "Bearer" });

      const byHeader = await withBearer(url, "/oauth/token/info", tokens.access_token!);
      const byQuery = await call(url, `/oauth/token/info?access_token=${tokens.access_token}`);
      for (const reply of [byHeader, byQuery]) {
        expect(answer(reply)).toMatchObject({
          status: 200,
          body: { resource_owner_id: user.id, application: { uid: app.clientId } },
        });
        expect((reply.json as { scope: string[] }).scope.sort()).toEqual(SCOPE.split(" ").sort());
      }
    });

    it("a confidential application approved for the same scopes skips consent", async () => {
      const listener = await world.listener();
      const verifier = generators.codeVerifier();
      const state = generators.state();
      const authUrl = client.authorizationUrl({
        scope: SCOPE,
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      await world.asUser(async (page) => {
        await page.goto(authUrl);
        expect(new URL(page.url()).origin).toBe(listener.origin);
      });
      const params = client.callbackParams((await listener.callbackFor(state)).toString());
      const second = await client.callback(listener.redirectUri, params, {
        code_verifier: verifier,
        state,
        nonce,
      });
      session.secrets.add(second.access_token!);
      session.secrets.add(second.refresh_token!);
      await client.revoke(second.access_token!);
    });

    it("refresh: a new pair; the old access token is then refused as revoked", async () => {
      const { url } = session.stack;
      refreshed = await client.refresh(tokens);
      session.secrets.add(refreshed.access_token!);
      session.secrets.add(refreshed.refresh_token!);
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect(refreshed.claims()).toMatchObject({ iss: url, aud: app.clientId, sub: tokens.claims().sub });

      expect(answer(await withBearer(url, "/api/v4/user", tokens.access_token!))).toEqual({
        status: 401,
        body: REVOKED,
      });
      expect(answer(await withBearer(url, "/oauth/token/info", tokens.access_token!))).toEqual({
        status: 401,
        body: INVALID_TOKEN_INFO,
      });
      expect((await withBearer(url, "/api/v4/user", refreshed.access_token!)).status).toBe(200);
      expect((await withBearer(url, "/oauth/token/info", refreshed.access_token!)).status).toBe(200);
    });

    it("revoke: the token is refused everywhere, and its refresh token is dead too", async () => {
      const { url } = session.stack;
      await client.revoke(refreshed.access_token!);
      // The launcher's URL may lead to another gateway replica than the one that revoked: that one
      // hears of it through the event, a moment later.
      await within(PROPAGATION_MS, async () => {
        const reply = await withBearer(url, "/api/v4/user", refreshed.access_token!);
        return reply.status !== 200;
      });
      expect(answer(await withBearer(url, "/api/v4/user", refreshed.access_token!))).toEqual({
        status: 401,
        body: REVOKED,
      });
      expect(answer(await withBearer(url, "/oauth/token/info", refreshed.access_token!))).toEqual({
        status: 401,
        body: INVALID_TOKEN_INFO,
      });
      expect(await client.introspect(refreshed.access_token!)).toEqual({ active: false });
      await expect(client.refresh(refreshed)).rejects.toMatchObject({ error: "invalid_grant" });
    });
  });
}
