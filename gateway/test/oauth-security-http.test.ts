/**
 * Regression tests over HTTP for the OAuth and web defects a security test of the running stack found:
 * client authentication as RFC 6749 §2.3 has it, the per-client rate limit that anyone could spend,
 * tokens outliving their user's deletion, prompt=none, and `return_to` reaching the CSP header.
 */
import { createUser, waitFor, PASSWORD, startStack, type ApiUser, type Gateway, type Stack } from "./support";
import { actorFor, Browser, freshIp, oauthClient, WEB_GATEWAY, type OAuthClient } from "./web-support";

interface App {
  id: number;
  application_id: string;
  secret: string;
}

const REDIRECT = "https://client.example/cb";
const INVALID_CLIENT = {
  error: "invalid_client",
  error_description:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
};
const BASIC_CHALLENGE = 'Basic realm="Doorkeeper", charset="UTF-8"';

// Every sign-in verifies an argon2 hash; with the other suites running in parallel that adds up.
jest.setTimeout(30_000);

let stack: Stack;
let grpc: OAuthClient;
let app: App;
beforeAll(async () => {
  // Other test files share the per-IP OAuth counter in Redis; this gateway's budget is out of reach.
  stack = await startStack({ gateways: [{ ...WEB_GATEWAY, CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
  grpc = oauthClient(stack);
  app = await instanceApp();
}, 30_000);
afterAll(async () => {
  grpc.close();
  await stack.stop();
});

async function instanceApp(): Promise<App> {
  const res = await stack.gw.post("/api/v4/applications", {
    token: stack.rootToken,
    form: { name: "security", redirect_uri: REDIRECT, scopes: "api read_user openid" },
  });
  if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${res.text}`);
  return res.body as App;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const clientCredentials = (gw: Gateway, headers: Record<string, string>, form: Record<string, string> = {}) =>
  gw.post("/oauth/token", { headers, form: { grant_type: "client_credentials", scope: "api", ...form } });

describe("client authentication (RFC 6749 §2.3)", () => {
  test("Basic and body credentials in one request are invalid_client, challenged with Basic", async () => {
    const headers = { Authorization: basic(app.application_id, app.secret) };
    const twice: Record<string, string>[] = [
      { client_secret: app.secret },
      { client_id: app.application_id, client_secret: app.secret },
      { client_id: "another-client" },
    ];
    for (const form of twice) {
      const res = await clientCredentials(stack.gw, headers, form);
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: INVALID_CLIENT });
      expect(res.headers.get("www-authenticate")).toBe(BASIC_CHALLENGE);
    }
    // The same client_id beside Basic is one method, not two.
    const same = await clientCredentials(stack.gw, headers, { client_id: app.application_id });
    expect(same.status).toBe(200);
  });

  test("a wrong secret sent by Basic is challenged with Basic; by post, with Doorkeeper's Bearer", async () => {
    const byBasic = await clientCredentials(stack.gw, {
      Authorization: basic(app.application_id, "gloas-x"),
    });
    expect({ status: byBasic.status, body: byBasic.body }).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(byBasic.headers.get("www-authenticate")).toBe(BASIC_CHALLENGE);
    const byPost = await clientCredentials(
      stack.gw,
      {},
      { client_id: app.application_id, client_secret: "x" },
    );
    expect(byPost.status).toBe(401);
    expect(byPost.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="Doorkeeper", error="invalid_client"/,
    );
  });

  test("credentials in the query string are refused, on token, revoke and introspect", async () => {
    const query = `client_id=${app.application_id}&client_secret=${app.secret}`;
    for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/introspect"]) {
      const res = await stack.gw.post(`${path}?${query}`, {
        form: { grant_type: "client_credentials", token: "0".repeat(64) },
      });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 401,
        body: INVALID_CLIENT,
      });
    }
  });
});

describe("the per-client OAuth rate limit", () => {
  test("counts only requests that prove the client: naming its client_id spends nothing", async () => {
    const limited = await stack.addGateway({ CANOPY_RATE_LIMIT_OAUTH: "3", CANOPY_TRUST_PROXY: "true" });
    const target = await instanceApp();
    const from = () => ({ "X-Forwarded-For": freshIp() });
    // Anyone, from anywhere: the client's id alone, or with a wrong secret, many more times than its budget.
    for (let i = 0; i < 4; i++) {
      const named = await clientCredentials(limited, from(), { client_id: target.application_id });
      expect(named.status).toBe(401);
      const guessed = await clientCredentials(limited, {
        ...from(),
        Authorization: basic(target.application_id, "gloas-guess"),
      });
      expect(guessed.status).toBe(401);
    }
    // The client itself still has its whole budget, and only then is throttled.
    const own = () =>
      clientCredentials(limited, { ...from(), Authorization: basic(target.application_id, target.secret) });
    for (let i = 0; i < 3; i++) expect((await own()).status).toBe(200);
    const throttled = await own();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("ratelimit-name")).toBe("throttle_oauth_client");
  });
});

test("deleting a user stops its applications' tokens (issued to others) on every gateway at once", async () => {
  const owner = await createUser(stack);
  const holder = await createUser(stack);
  const created = await grpc.createApplication({
    actor: actorFor(owner),
    name: "Owned",
    redirectUri: REDIRECT,
    scopes: ["api"],
    confidential: true,
    trusted: false,
    instance: false,
  });
  const token = await passwordToken(holder, created.application!.uid, created.secret);
  const second = await stack.addGateway();
  // Both gateways have the answer cached (for a minute by default).
  for (const gw of [stack.gw, second]) {
    expect((await gw.get("/api/v4/user", { headers: { Authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  }
  expect((await stack.gw.delete(`/api/v4/users/${owner.id}`, { token: stack.rootToken })).status).toBe(204);
  for (const gw of [stack.gw, second]) {
    const refused = async () => {
      const res = await gw.get("/api/v4/user", { headers: { Authorization: `Bearer ${token}` } });
      return res.status === 401 ? res : undefined;
    };
    await waitFor("the token to be refused", refused, 5_000);
  }
});

async function passwordToken(user: ApiUser, clientId: string, secret: string): Promise<string> {
  const res = await stack.gw.post("/oauth/token", {
    headers: { Authorization: basic(clientId, secret) },
    form: { grant_type: "password", username: user.username, password: PASSWORD, scope: "api" },
  });
  if (res.status !== 200) throw new Error(`password grant: ${res.status} ${res.text}`);
  return (res.body as { access_token: string }).access_token;
}

describe("prompt=none (OIDC Core §3.1.2.6)", () => {
  const authorize = (extra = "") =>
    `/oauth/authorize?client_id=${app.application_id}&redirect_uri=${encodeURIComponent(REDIRECT)}` +
    `&response_type=code&scope=openid+api&state=xyz&prompt=none${extra}`;

  test("without a session: login_required back to the client, with state, instead of the sign-in page", async () => {
    const res = await new Browser(stack.gw).get(authorize());
    expect(res.status).toBe(302);
    const location = new URL(res.location);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: "login_required",
      error_description: "The authorization server requires end-user authentication.",
      state: "xyz",
    });
  });

  test("signed in, when consent would be asked: consent_required, no page", async () => {
    const user = await createUser(stack);
    const b = new Browser(stack.gw);
    expect((await b.signIn(user.username)).status).toBe(302);
    const res = await b.get(authorize());
    expect(res.status).toBe(302);
    const location = new URL(res.location);
    expect(location.searchParams.get("error")).toBe("consent_required");
    expect(location.searchParams.get("state")).toBe("xyz");
  });
});

describe("Content-Security-Policy", () => {
  const POLICY = (formAction: string) =>
    `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
  const signInAfter = (redirectUri: string) =>
    new Browser(stack.gw).get(
      `/users/sign_in?return_to=${encodeURIComponent(`/oauth/authorize?redirect_uri=${encodeURIComponent(redirectUri)}`)}`,
    );

  test.each([
    "http://evil.example;sandbox",
    "http://evil.example;script-src",
    "http://a.example,b",
    "http://a'",
  ])("is never built from return_to's characters: %s", async (redirectUri) => {
    const page = await signInAfter(redirectUri);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(POLICY("'self'"));
  });

  test("still lists a well-formed redirect URI's origin", async () => {
    const page = await signInAfter("https://client.example:8443/cb");
    expect(page.headers.get("content-security-policy")).toBe(POLICY("'self' https://client.example:8443"));
  });
});
