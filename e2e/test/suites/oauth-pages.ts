// The web pages in headless Chromium, as root: sign in, register applications through the form (the
// secret is shown once), and the error page for requests that must never be redirected.
import type { BrowserContext, Page } from "playwright-core";
import { unique } from "../support/api";
import { definition, heading, screenshot, signIn, statusOf } from "../support/browser";
import type { OAuthWorld, RegisteredApp } from "../support/oauth-world";
import type { Session } from "../support/session";

const SCOPES = ["api", "read_user", "openid", "profile", "email"];

/** Fills and sends "Add new application"; reads the ID and the secret off the page that follows. */
async function register(page: Page, base: string, redirectUri: string, confidential: boolean) {
  const name = unique(confidential ? "e2e-confidential-" : "e2e-public-");
  await page.goto(`${base}/profile/applications`);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Redirect URI", { exact: true }).fill(redirectUri);
  for (const scope of SCOPES) await page.getByLabel(scope, { exact: true }).check();
  await page.getByLabel("Confidential", { exact: true }).setChecked(confidential);
  await page.getByRole("button", { name: "Save application" }).click();
  await heading(page, `Application: ${name}`);
  const app: RegisteredApp = {
    name,
    clientId: await definition(page, "Application ID"),
    secret: await definition(page, "Secret"),
    confidential,
  };
  expect(await definition(page, "Callback URL")).toBe(redirectUri);
  expect(await definition(page, "Scopes")).toBe(SCOPES.join(" "));
  expect(await definition(page, "Confidential")).toBe(confidential ? "Yes" : "No");
  return app;
}

export function oauthPages(session: Session, world: OAuthWorld) {
  describe("OAuth web pages in headless Chromium", () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await (await world.browser()).newContext();
      page = await context.newPage();
    }, 60_000);

    afterAll(() => context?.close());

    it("root signs in with the labelled form and lands on the applications page", async () => {
      const { url, rootPassword } = session.stack;
      expect(statusOf(await page.goto(`${url}/users/sign_in`))).toBe(200);
      await heading(page, "Sign in to Canopy");
      await screenshot(page, "sign-in");
      await signIn(page, "root", rootPassword);
      expect(new URL(page.url()).pathname).toBe("/profile/applications");
      await heading(page, "Applications");

      expect(statusOf(await page.goto(`${url}/`))).toBe(200);
      await page.getByText("Signed in as @root").waitFor();
      await screenshot(page, "home");
    });

    it("registers a confidential application; its secret is shown once", async () => {
      const { url } = session.stack;
      const listener = await world.listener();
      const app = await register(page, url, listener.redirectUri, true);
      session.secrets.add(app.secret);
      expect(app.clientId).toMatch(/^[0-9a-f]{64}$/);
      expect(app.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
      await page.getByText("This is the only time the secret is accessible").waitFor();
      await screenshot(page, "application-created");
      world.apps.confidential = app;

      // The list, loaded afresh: the application is there, its secret is not.
      expect(statusOf(await page.goto(`${url}/profile/applications`))).toBe(200);
      const row = page.getByRole("row").filter({ hasText: app.name });
      expect(await row.innerText()).toContain(app.clientId);
      const html = await page.content();
      expect(html).not.toContain(app.secret);
      expect(html).not.toContain(app.secret.replace(/^gloas-/, ""));
      await screenshot(page, "applications");
    });

    it("registers a public application (Confidential unchecked)", async () => {
      const listener = await world.listener();
      const app = await register(page, session.stack.url, listener.redirectUri, false);
      session.secrets.add(app.secret);
      world.apps.public = app;
    });

    it("an unknown client_id gets the 400 error page, never a redirect", async () => {
      const listener = await world.listener();
      const state = unique("state-");
      const query = new URLSearchParams({
        client_id: "0".repeat(64),
        redirect_uri: listener.redirectUri,
        response_type: "code",
        scope: "api",
        state,
      });
      const response = await page.goto(`${session.stack.url}/oauth/authorize?${query}`);
      expect(statusOf(response)).toBe(400);
      await heading(page, "An error has occurred");
      expect(await page.locator("pre").innerText()).toBe(
        "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
      );
      await screenshot(page, "error");
      expect(listener.hits.filter((u) => u.searchParams.get("state") === state)).toEqual([]);
    });

    it("a redirect_uri that is not registered gets the 400 error page", async () => {
      const listener = await world.listener();
      const app = world.app("confidential");
      const state = unique("state-");
      // Another path on the registered host: loopback URIs may differ in the port only (RFC 8252).
      for (const redirectUri of [`${listener.origin}/elsewhere`, "https://attacker.example/callback"]) {
        const query = new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: redirectUri,
          response_type: "code",
          scope: "api",
          state,
        });
        const response = await page.goto(`${session.stack.url}/oauth/authorize?${query}`);
        expect(statusOf(response)).toBe(400);
        expect(new URL(page.url()).origin).toBe(session.stack.url);
        await heading(page, "An error has occurred");
        expect(await page.locator("pre").innerText()).toBe("The redirect URI included is not valid.");
      }
    });
  });
}
