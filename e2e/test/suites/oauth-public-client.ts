// A public (non-confidential) application, the user consenting in Chromium: PKCE is required, the
// code flow works without a secret, a replayed code revokes what it issued, "Deny" goes back as
// access_denied, and the implicit grant delivers the token in the URL fragment.
import { generators, type BaseClient } from "openid-client";
import type { Page } from "playwright-core";
import { heading } from "../support/browser";
import { answer, postForm, REVOKED, withBearer } from "../support/oauth-http";
import type { OAuthWorld, RegisteredApp } from "../support/oauth-world";
import type { Session } from "../support/session";

const DENIED = "The resource owner or authorization server denied the request.";

/** The consent page for `app` is showing; clicks `button` ("Authorize" or "Deny"). */
async function answerConsent(page: Page, app: RegisteredApp, button: "Authorize" | "Deny") {
  await heading(page, "Authorize application");
  expect(await page.locator("main").innerText()).toContain(`${app.name} is requesting access`);
  await page.getByRole("button", { name: button, exact: true }).click();
}

export function oauthPublicClient(session: Session, world: OAuthWorld) {
  describe("OAuth with a public application, consent in Chromium", () => {
    let client: BaseClient;
    let app: RegisteredApp;

    beforeAll(async () => {
      app = world.app("public");
      const issuer = await world.issuer();
      client = new issuer.Client({
        client_id: app.clientId,
        redirect_uris: [(await world.listener()).redirectUri],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
    });

    it("without PKCE the browser goes back to the client with 'Code challenge is required.'", async () => {
      const listener = await world.listener();
      const state = generators.state();
      await world.asUser((page) => page.goto(client.authorizationUrl({ scope: "openid api", state })));
      const hit = await listener.callbackFor(state);
      expect(Object.fromEntries(hit.searchParams)).toEqual({
        error: "invalid_request",
        error_description: "Code challenge is required.",
        state,
      });
    });

    it("with PKCE: consent, then tokens without a client secret; a replayed code revokes them", async () => {
      const { url } = session.stack;
      const user = await world.user();
      const listener = await world.listener();
      const verifier = generators.codeVerifier();
      const state = generators.state();
      const nonce = generators.nonce();
      const authUrl = client.authorizationUrl({
        scope: "openid api",
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      await world.asUser(async (page) => {
        await page.goto(authUrl);
        await answerConsent(page, app, "Authorize");
        await page.waitForURL((u) => u.origin === listener.origin);
      });
      const hit = await listener.callbackFor(state);
      const tokens = await client.callback(listener.redirectUri, client.callbackParams(hit.toString()), {
        code_verifier: verifier,
        state,
        nonce,
      });
      session.secrets.add(tokens.access_token!);
      session.secrets.add(tokens.refresh_token!);
      expect(tokens.claims()).toMatchObject({ aud: app.clientId, sub: String(user.id) });
      expect(answer(await withBearer(url, "/api/v4/user", tokens.access_token!))).toMatchObject({
        status: 200,
        body: { username: user.username },
      });

      const replay = await postForm(url, "/oauth/token", {
        grant_type: "authorization_code",
        code: hit.searchParams.get("code")!,
        redirect_uri: listener.redirectUri,
        client_id: app.clientId,
        code_verifier: verifier,
      });
      expect(answer(replay)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(answer(await withBearer(url, "/api/v4/user", tokens.access_token!))).toEqual({
        status: 401,
        body: REVOKED,
      });
    });

    it("Deny sends error=access_denied and the state back to the client", async () => {
      const listener = await world.listener();
      const state = generators.state();
      const authUrl = client.authorizationUrl({
        scope: "api",
        code_challenge: generators.codeChallenge(generators.codeVerifier()),
        code_challenge_method: "S256",
        state,
      });
      await world.asUser(async (page) => {
        await page.goto(authUrl);
        await answerConsent(page, app, "Deny");
        await page.waitForURL((u) => u.origin === listener.origin);
      });
      const hit = await listener.callbackFor(state);
      expect(Object.fromEntries(hit.searchParams)).toEqual({
        error: "access_denied",
        error_description: DENIED,
        state,
      });
    });

    it("implicit: the token arrives in the fragment, which the client's server never sees", async () => {
      const { url } = session.stack;
      const user = await world.user();
      const listener = await world.listener();
      const state = generators.state();
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: listener.redirectUri,
        response_type: "token",
        scope: "api read_user",
        state,
      });
      const landed = await world.asUser(async (page) => {
        await page.goto(`${url}/oauth/authorize?${query}`);
        await answerConsent(page, app, "Authorize");
        await page.waitForURL((u) => u.origin === listener.origin);
        return new URL(page.url());
      });
      const fragment = Object.fromEntries(new URLSearchParams(landed.hash.slice(1)));
      expect(fragment).toEqual({
        access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        token_type: "Bearer",
        expires_in: "7200",
        scope: "api read_user",
        state,
      });
      const token = session.secrets.add(fragment.access_token!);
      expect(landed.search).toBe("");
      expect(listener.hits.some((u) => u.toString().includes(token))).toBe(false);

      // The client checks the token was issued to it before trusting it.
      const info = await withBearer(url, "/oauth/token/info", token);
      expect(answer(info)).toMatchObject({
        status: 200,
        body: { resource_owner_id: user.id, application: { uid: app.clientId } },
      });
      expect(answer(await withBearer(url, "/api/v4/user", token))).toMatchObject({
        status: 200,
        body: { id: user.id },
      });
    });
  });
}
