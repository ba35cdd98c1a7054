// What the OAuth suites share: one Chromium, one redirect listener, one ordinary user (who grants the
// consents), the applications registered through the page, and the provider as openid-client sees it.
// Each is made on first use; `dispose()` closes the browser and the listener.
import { Issuer } from "openid-client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createUser, type CreatedUser } from "./api";
import { launchChromium, signIn } from "./browser";
import { RedirectListener } from "./redirect-listener";
import type { Session } from "./session";

export interface RegisteredApp {
  name: string;
  clientId: string;
  secret: string;
  confidential: boolean;
}

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

export class OAuthWorld {
  readonly apps: { confidential?: RegisteredApp; public?: RegisteredApp } = {};
  private browserP?: Promise<Browser>;
  private listenerP?: Promise<RedirectListener>;
  private userP?: Promise<CreatedUser>;
  private issuerP?: Promise<Issuer>;
  /** The user's signed-in cookies, kept after their first sign-in so later scenarios skip the form. */
  private userState?: StorageState;

  constructor(readonly session: Session) {}

  browser(): Promise<Browser> {
    return (this.browserP ??= launchChromium());
  }

  listener(): Promise<RedirectListener> {
    return (this.listenerP ??= RedirectListener.start());
  }

  /** The ordinary (non-admin) user the consent flows run as. */
  user(): Promise<CreatedUser> {
    const { url, rootToken } = this.session.stack;
    return (this.userP ??= createUser(url, rootToken, this.session.secrets));
  }

  /** `Issuer.discover(baseUrl)`: discovery as a certified client reads it. */
  issuer(): Promise<Issuer> {
    return (this.issuerP ??= Issuer.discover(this.session.stack.url));
  }

  /** An application the pages suite registered; fails clearly when that suite did not get so far. */
  app(kind: "confidential" | "public"): RegisteredApp {
    const app = this.apps[kind];
    if (!app) throw new Error(`no ${kind} application was registered (see the pages suite's failure)`);
    return app;
  }

  /** Runs `scenario` in a fresh browser context (no cookies), closing it afterwards. */
  async withPage<T>(scenario: (page: Page) => Promise<T>, state?: StorageState): Promise<T> {
    const context = await (await this.browser()).newContext({ storageState: state });
    try {
      return await scenario(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /**
   * Like `withPage`, with the user already signed in. The first time, the user signs in through the
   * form; afterwards the context starts with their cookies (the sign-in limit is 10 a minute per IP).
   */
  async asUser<T>(scenario: (page: Page) => Promise<T>): Promise<T> {
    if (!this.userState) {
      const user = await this.user();
      this.userState = await this.withPage(async (page) => {
        await page.goto(`${this.session.stack.url}/users/sign_in`);
        await signIn(page, user.username, user.password);
        return page.context().storageState();
      });
    }
    return this.withPage(scenario, this.userState);
  }

  /** Keeps the cookies of a context in which the user has just signed in, for `asUser`. */
  async rememberUser(page: Page): Promise<void> {
    this.userState = await page.context().storageState();
  }

  async dispose(): Promise<void> {
    const browser = await this.browserP?.catch(() => undefined);
    await browser?.close();
    const listener = await this.listenerP?.catch(() => undefined);
    await listener?.close();
  }
}
