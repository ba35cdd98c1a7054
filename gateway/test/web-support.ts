/**
 * A tiny browser for the HTML pages: it keeps cookies (by hand, from Set-Cookie), never follows
 * redirects on its own (tests look at each hop), and reads the CSRF token out of forms.
 *
 * Each browser comes from its own address (X-Forwarded-For, with gateways that trust the proxy
 * header), so the per-IP sign-in throttle of one test never counts another test's attempts.
 */
import { randomInt } from "node:crypto";
import type { PromiseClient } from "@canopy/kit";
import { common, oauth } from "@canopy/protos";
import { PASSWORD, startStack, type Gateway, type Stack } from "./support";

/** Web tests' gateways: proxy headers trusted (per-browser addresses), sign-in budget out of reach. */
export const WEB_GATEWAY = { CANOPY_TRUST_PROXY: "true", CANOPY_RATE_LIMIT_SIGN_IN: "1000000" };

export const startWebStack = (extra: Record<string, string>[] = []) =>
  startStack({ gateways: [WEB_GATEWAY, ...extra] });

/** An address from the benchmarking range (RFC 2544) that nothing else uses. */
export const freshIp = () => `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  /** The Location header of a redirect, or "". */
  location: string;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  readonly ip = freshIp();

  constructor(readonly gw: Gateway) {}

  async request(method: string, path: string, form?: Record<string, string | string[]>): Promise<Page> {
    const headers: Record<string, string> = { "X-Forwarded-For": this.ip };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const item of [v].flat()) params.append(k, item);
      body = params.toString();
    }
    const res = await fetch(this.gw.base + path, { method, headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) this.remember(line);
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get("location") ?? "",
    };
  }

  get = (path: string) => this.request("GET", path);
  post = (path: string, form: Record<string, string | string[]> = {}) => this.request("POST", path, form);

  /** GETs `path` and posts its (first) form with the page's CSRF token plus `fields`. */
  async submit(path: string, action: string, fields: Record<string, string | string[]>) {
    const page = await this.get(path);
    return this.post(action, { authenticity_token: csrfTokenOf(page.text), ...fields });
  }

  async signIn(login: string, password = PASSWORD): Promise<Page> {
    return this.submit("/users/sign_in", "/users/sign_in", {
      "user[login]": login,
      "user[password]": password,
    });
  }

  get session() {
    return this.cookies.get("_canopy_session");
  }

  private remember(line: string) {
    const [pair = "", ...attributes] = line.split(";").map((s) => s.trim());
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const expired = attributes.some((a) => /^max-age=0$/i.test(a));
    if (expired || !value) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

export function csrfTokenOf(html: string): string {
  const match = /name="authenticity_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no authenticity_token in the page:\n${html.slice(0, 500)}`);
  return match[1]!;
}

/** A hidden field's value in the first form that has it. */
export function hiddenValue(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1]
    ?.replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

/** The security headers every page carries. */
export function expectPageHeaders(page: Page) {
  expect(page.headers.get("x-frame-options")).toBe("DENY");
  const csp = page.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("base-uri 'none'");
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("referrer-policy")).toBe("same-origin");
  expect(page.headers.get("cache-control")).toBe("no-store");
}

export function expectHtmlPage(page: Page, status = 200) {
  expect(page.status).toBe(status);
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expectPageHeaders(page);
}

export type OAuthClient = PromiseClient<typeof oauth.OAuthServiceService>;

/** A gRPC client of the OAuth service, for what the pages do not offer (trusted apps). */
export const oauthClient = (stack: Stack): OAuthClient => stack.authService.client(oauth.OAuthServiceService);

export const actorFor = (user: { id: number; username: string }, admin = false): common.Actor => ({
  userId: user.id,
  username: user.username,
  admin,
  external: false,
  scopes: [],
  tokenKind: common.TokenKind.TOKEN_KIND_SESSION,
  tokenId: 0,
  impersonatorId: 0,
});

/** The sign-in throttle's Redis key for an address. */
export const signInThrottleKey = (ip: string) => `canopy:rl:throttle_sign_in:ip:${ip}`;
