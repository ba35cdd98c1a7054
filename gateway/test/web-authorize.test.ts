/**
 * GET/POST/DELETE /oauth/authorize through the pages: the reference's order of checks, error pages
 * that never redirect to an unverified client, sign-in and back, the consent page, approval and
 * denial, PKCE for public clients, the implicit grant, and the cases that skip consent.
 */
import { createHash, randomBytes } from "node:crypto";
import { createAdmin, createUser, PASSWORD, type ApiUser, type Stack } from "./support";
import {
  actorFor,
  Browser,
  csrfTokenOf,
  expectHtmlPage,
  hiddenValue,
  oauthClient,
  startWebStack,
  type OAuthClient,
  type Page,
} from "./web-support";

const CALLBACK = "https://client.example/cb";
const PUBLIC_CALLBACK = "http://127.0.0.1:7000/cb";

// Every sign-in verifies an argon2 hash; with the other suites running in parallel that adds up.
jest.setTimeout(30_000);

let stack: Stack;
let grpc: OAuthClient;
let owner: ApiUser;
let confidential: { uid: string; secret: string; name: string };
let publicApp: { uid: string };
let trusted: { uid: string };

beforeAll(async () => {
  stack = await startWebStack();
  grpc = oauthClient(stack);
  owner = await createUser(stack);
  const create = async (actor = actorFor(owner), extra: Record<string, unknown> = {}) => {
    const name = `Client <${randomBytes(3).toString("hex")}>`;
    const made = await grpc.createApplication({
      actor,
      name,
      redirectUri: CALLBACK,
      scopes: ["api", "read_user", "openid", "profile"],
      confidential: true,
      trusted: false,
      instance: false,
      ...extra,
    });
    return { uid: made.application!.uid, secret: made.secret, name };
  };
  confidential = await create();
  publicApp = await create(actorFor(owner), { confidential: false, redirectUri: PUBLIC_CALLBACK });
  const root = (await stack.gw.get("/api/v4/user", { token: stack.rootToken })).body as ApiUser;
  trusted = await create(actorFor(root, true), { trusted: true });
}, 30_000);
afterAll(async () => {
  grpc.close();
  await stack.stop();
});

const authorizePath = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`;
const codeRequest = (extra: Record<string, string> = {}) =>
  authorizePath({
    client_id: confidential.uid,
    redirect_uri: CALLBACK,
    response_type: "code",
    state: "st-1",
    ...extra,
  });

async function signedInBrowser(): Promise<{ user: ApiUser; b: Browser }> {
  const user = await createUser(stack);
  const b = new Browser(stack.gw);
  expect((await b.signIn(user.username)).status).toBe(302);
  return { user, b };
}

/** The redirect's URL, with query and fragment parameters readable. */
function redirectOf(page: Page) {
  expect(page.status).toBe(302);
  const url = new URL(page.location);
  return { url, query: url.searchParams, fragment: new URLSearchParams(url.hash.slice(1)) };
}

/** Posts one of the consent page's forms, with exactly the fields the page holds. */
function consentFields(page: Page): Record<string, string> {
  const names = ["client_id", "redirect_uri", "state", "response_type", "scope", "nonce", "code_challenge"];
  const more = ["code_challenge_method", "response_mode", "authenticity_token"];
  return Object.fromEntries([...names, ...more].map((n) => [n, hiddenValue(page.text, n) ?? ""]));
}

async function exchange(code: string, redirectUri = CALLBACK, extra: Record<string, string> = {}) {
  return stack.gw.post("/oauth/token", {
    form: { grant_type: "authorization_code", code, redirect_uri: redirectUri, ...extra },
  });
}

describe("errors the client must not be sent to: a 400 page", () => {
  test.each([
    [
      "an unknown client",
      { client_id: "f".repeat(64) },
      "Client authentication failed due to unknown client",
    ],
    ["no client_id", { client_id: "" }, "Missing required parameter: client_id."],
    [
      "another redirect URI",
      { redirect_uri: "https://evil.example/cb" },
      "The redirect URI included is not valid.",
    ],
    [
      "a longer redirect URI",
      { redirect_uri: `${CALLBACK}/more` },
      "The redirect URI included is not valid.",
    ],
    ["no redirect URI", { redirect_uri: "" }, "The redirect URI included is not valid."],
  ])("%s", async (_what, params, description) => {
    const { b } = await signedInBrowser();
    const page = await b.get(codeRequest(params));
    expectHtmlPage(page, 400);
    expect(page.location).toBe("");
    expect(page.text).toContain("<h1>An error has occurred</h1>");
    expect(page.text).toMatch(new RegExp(`<pre>${description.replace(/[.]/g, "\\.")}`));
  });
});

test("other errors go back to the client with error, error_description and state", async () => {
  const { b } = await signedInBrowser();
  const { url, query } = redirectOf(await b.get(codeRequest({ scope: "api write_everything" })));
  expect(`${url.origin}${url.pathname}`).toBe(CALLBACK);
  expect(Object.fromEntries(query)).toEqual({
    error: "invalid_scope",
    error_description: "The requested scope is invalid, unknown, or malformed.",
    state: "st-1",
  });
  const unsupported = redirectOf(await b.get(codeRequest({ response_type: "id_token" })));
  expect(unsupported.query.get("error")).toBe("unsupported_response_type");
});

test("not signed in: sign in first, then back to the same request and its consent page", async () => {
  const user = await createUser(stack);
  const b = new Browser(stack.gw);
  const path = codeRequest({ scope: "read_user openid" });
  const first = await b.get(path);
  expect(first.status).toBe(302);
  expect(first.location).toBe("/users/sign_in");
  // The sign-in form may lead on to the client (trusted apps), so its form-action allows it.
  const form = await b.get("/users/sign_in");
  expect(form.headers.get("content-security-policy")).toContain("form-action 'self' https://client.example;");
  const signedIn = await b.post("/users/sign_in", {
    authenticity_token: csrfTokenOf(form.text),
    "user[login]": user.username,
    "user[password]": "s3cret-Passw0rd!",
  });
  expect(signedIn.location).toBe(path);
  const consent = await b.get(signedIn.location);
  expectHtmlPage(consent);
  expect(consent.text).toContain("is requesting access to your account on Canopy.");
});

test("the consent page names the application, its owner and each scope, and allows the client in form-action", async () => {
  const { user, b } = await signedInBrowser();
  const page = await b.get(codeRequest({ scope: "read_user openid", nonce: "n-1" }));
  expectHtmlPage(page);
  const csp = page.headers.get("content-security-policy")!;
  expect(csp).toContain("form-action 'self' https://client.example;");
  expect(csp).toContain("frame-ancestors 'none'");
  const escapedName = confidential.name.replace("<", "&lt;").replace(">", "&gt;");
  expect(page.text).toContain(`<b>${escapedName}</b> is requesting access to your account on Canopy.`);
  expect(page.text).toContain(`@${user.username}`);
  expect(page.text).toContain(`Registered by ${owner.name}`);
  expect(page.text).toContain("<li><b>read_user</b>: Grants read-only access to your profile");
  expect(page.text).toContain(
    "<li><b>openid</b>: Grants permission to authenticate with Canopy using OpenID Connect.",
  );
  expect(page.text).not.toContain("<li><b>api</b>");
  expect(page.text).toContain("You will be redirected to <b>client.example</b> after authorizing.");
  expect(page.text).toContain('<button type="submit">Authorize</button>');
  expect(page.text).toContain('<button type="submit" class="secondary">Deny</button>');
  expect(page.text).toContain('<input type="hidden" name="_method" value="delete">');
  expect(consentFields(page)).toMatchObject({
    client_id: confidential.uid,
    redirect_uri: CALLBACK,
    state: "st-1",
    response_type: "code",
    scope: "read_user openid",
    nonce: "n-1",
  });
  // Without a scope the default `api` is asked for, and the form says so.
  expect(hiddenValue((await b.get(codeRequest())).text, "scope")).toBe("api");
});

test("Authorize redirects with a code and state; the code is the user's; the next request skips consent", async () => {
  const { user, b } = await signedInBrowser();
  const page = await b.get(codeRequest({ scope: "read_user" }));
  const { url, query } = redirectOf(await b.post("/oauth/authorize", consentFields(page)));
  expect(`${url.origin}${url.pathname}`).toBe(CALLBACK);
  expect(query.get("code")).toMatch(/^[0-9a-f]{64}$/);
  expect(query.get("state")).toBe("st-1");

  const token = await exchange(query.get("code")!, CALLBACK, {
    client_id: confidential.uid,
    client_secret: confidential.secret,
  });
  expect(token.status).toBe(200);
  const accessToken = (token.body as { access_token: string }).access_token;
  const me = await stack.gw.get("/api/v4/user", { headers: { Authorization: `Bearer ${accessToken}` } });
  expect((me.body as ApiUser).username).toBe(user.username);

  // A confidential application already approved for the same scopes does not ask again...
  const again = redirectOf(await b.get(codeRequest({ scope: "read_user", state: "st-2" })));
  expect(again.query.get("code")).toMatch(/^[0-9a-f]{64}$/);
  expect(again.query.get("state")).toBe("st-2");
  // ...but does for other scopes.
  expectHtmlPage(await b.get(codeRequest({ scope: "read_user openid" })));
});

test("Deny (the form's _method=delete, or a real DELETE) redirects with access_denied", async () => {
  const { b } = await signedInBrowser();
  const page = await b.get(codeRequest());
  const expected = {
    error: "access_denied",
    error_description: "The resource owner or authorization server denied the request.",
    state: "st-1",
  };
  const denied = redirectOf(await b.post("/oauth/authorize", { ...consentFields(page), _method: "delete" }));
  expect(Object.fromEntries(denied.query)).toEqual(expected);
  const deleted = redirectOf(await b.request("DELETE", "/oauth/authorize", consentFields(page)));
  expect(Object.fromEntries(deleted.query)).toEqual(expected);
});

test("answering without the session's CSRF token is refused and issues nothing", async () => {
  const { b } = await signedInBrowser();
  const fields = consentFields(await b.get(codeRequest()));
  for (const authenticity_token of ["", "x".repeat(43)]) {
    const res = await b.post("/oauth/authorize", { ...fields, authenticity_token });
    expectHtmlPage(res, 422);
    expect(res.location).toBe("");
    expect(res.text).toContain("Invalid authenticity token");
  }
  // Another session's token does not count either.
  const other = await signedInBrowser();
  const res = await other.b.post("/oauth/authorize", fields);
  expectHtmlPage(res, 422);
});

test("implicit grant: the token comes back in the fragment (public clients only)", async () => {
  const { b } = await signedInBrowser();
  const implicit = { client_id: publicApp.uid, redirect_uri: PUBLIC_CALLBACK, response_type: "token" };
  const page = await b.get(authorizePath({ ...implicit, scope: "read_user", state: "imp" }));
  expectHtmlPage(page);
  const { url, query, fragment } = redirectOf(await b.post("/oauth/authorize", consentFields(page)));
  expect(`${url.origin}${url.pathname}`).toBe(PUBLIC_CALLBACK);
  expect([...query]).toEqual([]);
  expect(Object.fromEntries(fragment)).toEqual({
    access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
    token_type: "Bearer",
    expires_in: "7200",
    scope: "read_user",
    state: "imp",
  });
});

test("a public client must use PKCE (S256); with it, the code needs the verifier", async () => {
  const { b } = await signedInBrowser();
  const base = {
    client_id: publicApp.uid,
    redirect_uri: PUBLIC_CALLBACK,
    response_type: "code",
    scope: "api",
    state: "p",
  };
  const refused = redirectOf(await b.get(authorizePath(base)));
  expect(Object.fromEntries(refused.query)).toEqual({
    error: "invalid_request",
    error_description: "Code challenge is required.",
    state: "p",
  });
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const page = await b.get(
    authorizePath({ ...base, code_challenge: challenge, code_challenge_method: "S256" }),
  );
  expectHtmlPage(page);
  expect(page.text).toContain("You will be redirected to <b>127.0.0.1</b> after authorizing.");
  expect(page.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:7000;");
  expect(consentFields(page)).toMatchObject({ code_challenge: challenge, code_challenge_method: "S256" });
  const { query } = redirectOf(await b.post("/oauth/authorize", consentFields(page)));
  const code = query.get("code")!;
  const token = await exchange(code, PUBLIC_CALLBACK, { client_id: publicApp.uid, code_verifier: verifier });
  expect(token.status).toBe(200);
});

test("a trusted application skips consent, even right after sign-in", async () => {
  const { b } = await signedInBrowser();
  const path = authorizePath({
    client_id: trusted.uid,
    redirect_uri: CALLBACK,
    response_type: "code",
    state: "t",
  });
  const { query } = redirectOf(await b.get(path));
  expect(query.get("code")).toMatch(/^[0-9a-f]{64}$/);
  expect(query.get("state")).toBe("t");

  const fresh = new Browser(stack.gw);
  expect((await fresh.get(path)).location).toBe("/users/sign_in");
  const root = await fresh.signIn((await createAdmin(stack)).username, PASSWORD);
  expect(root.location).toBe(path);
  expect(redirectOf(await fresh.get(root.location)).query.get("code")).toMatch(/^[0-9a-f]{64}$/);
});
