// Headless Chromium (Debian's `chromium` driven by playwright-core) for the web pages and the OAuth
// redirects. Every helper finds elements by their label or role, so the labels are what is tested.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page, type Response } from "playwright-core";
import { REPO_ROOT } from "./stack";

/** Screenshots land here; CI keeps the folder as an artifact (git ignores it). */
export const ARTIFACTS = path.join(REPO_ROOT, "e2e", "artifacts");

const CHROMIUM = process.env.CANOPY_E2E_CHROMIUM ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** One full-page screenshot, `e2e/artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The status of a navigation's answer; fails when there was none (same-document navigation). */
export function statusOf(response: Response | null): number {
  if (!response) throw new Error("the navigation had no HTTP answer");
  return response.status();
}

/** The sign-in form as a person fills it; resolves once the browser has left the sign-in page. */
export async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel("Username or email", { exact: true }).fill(login);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/users/sign_in");
}

/** The text of the `<dd>` that follows the `<dt>` named `term` (the application page's details). */
export async function definition(page: Page, term: string): Promise<string> {
  const dd = page.locator(`xpath=//dt[normalize-space()="${term}"]/following-sibling::dd[1]`);
  return (await dd.innerText()).trim();
}

/** Waits for the `<h1>`/`<h2>` named `name`. */
export async function heading(page: Page, name: string): Promise<void> {
  await page.getByRole("heading", { name, exact: true }).waitFor();
}
