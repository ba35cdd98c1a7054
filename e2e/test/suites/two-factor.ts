// Two-factor authentication in headless Chromium, as a person does it: enrol on the profile page
// with the secret shown there (an authenticator app is otplib here), sign out, sign in with a code,
// then with a recovery code. The secret and the codes are recorded as secrets the logs must not hold.
import { generateSync } from "otplib";
import type { BrowserContext, Page } from "playwright-core";
import { call, createUser, type CreatedUser } from "../support/api";
import { heading, screenshot, signIn, statusOf } from "../support/browser";
import type { OAuthWorld } from "../support/oauth-world";
import type { Session } from "../support/session";
import { leaks } from "./logs";

/** The password form, then the code form; resolves once the browser has left the sign-in page. */
async function signInWithCode(page: Page, url: string, user: CreatedUser, code: string, shot?: string) {
  expect(statusOf(await page.goto(`${url}/users/sign_in`))).toBe(200);
  await page.getByLabel("Username or email", { exact: true }).fill(user.username);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await heading(page, "Two-factor authentication");
  if (shot) await screenshot(page, shot);
  await page.getByLabel("Enter verification code", { exact: true }).fill(code);
  await page.getByRole("button", { name: "Verify code", exact: true }).click();
  await page.waitForURL((u) => u.pathname !== "/users/sign_in");
}

async function signOut(page: Page, url: string) {
  expect(statusOf(await page.goto(`${url}/users/sign_out`))).toBe(200);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL((u) => u.pathname === "/users/sign_in");
}

export function twoFactor(session: Session, world: OAuthWorld) {
  describe("two-factor authentication in headless Chromium", () => {
    let context: BrowserContext;
    let page: Page;
    let user: CreatedUser;
    let secret = "";
    let recoveryCodes: string[] = [];

    beforeAll(async () => {
      const { url, rootToken } = session.stack;
      user = await createUser(url, rootToken, session.secrets);
      context = await (await world.browser()).newContext();
      page = await context.newPage();
    }, 60_000);

    afterAll(() => context?.close());

    it("enrols on the profile page: QR code and secret, a code and the password, ten recovery codes", async () => {
      const { url, rootToken } = session.stack;
      expect(statusOf(await page.goto(`${url}/users/sign_in`))).toBe(200);
      await signIn(page, user.username, user.password);
      expect(statusOf(await page.goto(`${url}/-/profile/two_factor_auth`))).toBe(200);
      await heading(page, "Two-Factor Authentication");
      await page.getByAltText("QR code for two-factor authentication").waitFor();
      secret = session.secrets.add((await page.locator("#otp_secret").innerText()).trim());
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      await screenshot(page, "two-factor-enrol");

      await page.getByLabel("Verification code", { exact: true }).fill(generateSync({ secret }));
      await page.getByLabel("Current password", { exact: true }).fill(user.password);
      await page.getByRole("button", { name: "Register with two-factor app" }).click();
      await page.getByText("Congratulations! You have enabled two-factor authentication!").waitFor();
      recoveryCodes = (await page.locator(".recovery-code").allInnerTexts()).map((c) =>
        session.secrets.add(c.trim()),
      );
      expect(recoveryCodes).toHaveLength(10);
      await screenshot(page, "two-factor-recovery-codes");

      const api = await call(url, `/api/v4/users/${user.id}`, { token: rootToken });
      expect(api.json).toMatchObject({ two_factor_enabled: true });
    });

    it("signs out, then signs in with the password and a code from the app", async () => {
      const { url } = session.stack;
      await signOut(page, url);
      // The step after the current one: enrolment spent the current step's code.
      const code = generateSync({ secret, epoch: Date.now() / 1000 + 30 });
      await signInWithCode(page, url, user, code, "two-factor-code");
      expect(new URL(page.url()).pathname).toBe("/profile/applications");
      expect(statusOf(await page.goto(`${url}/`))).toBe(200);
      await page.getByText(`Signed in as @${user.username}`).waitFor();
    });

    it("signs in with a recovery code, which then is spent", async () => {
      const { url } = session.stack;
      await signOut(page, url);
      await signInWithCode(page, url, user, recoveryCodes[0]!);
      expect(new URL(page.url()).pathname).toBe("/profile/applications");
      await screenshot(page, "two-factor-signed-in");

      await signOut(page, url);
      expect(statusOf(await page.goto(`${url}/users/sign_in`))).toBe(200);
      await page.getByLabel("Username or email", { exact: true }).fill(user.username);
      await page.getByLabel("Password", { exact: true }).fill(user.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByLabel("Enter verification code", { exact: true }).fill(recoveryCodes[0]!);
      await page.getByRole("button", { name: "Verify code", exact: true }).click();
      await page.getByText("Invalid two-factor code.").waitFor();
    });

    it("no process logged the secret or a recovery code", () => {
      expect(leaks(session.stack.allLines(), [secret, ...recoveryCodes])).toEqual([]);
    });
  });
}
