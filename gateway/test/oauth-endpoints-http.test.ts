/**
 * The OAuth provider's other endpoints over HTTP: /oauth/token/info, /oauth/revoke,
 * /oauth/introspect, /oauth/userinfo, discovery documents and the signing keys.
 */
import {
  createUser,
  EXTERNAL_URL,
  expectError,
  PASSWORD,
  REVOKED,
  startStack,
  type ApiUser,
  type Reply,
  type Stack,
} from "./support";

interface App {
  id: number;
  application_id: string;
  secret: string;
}
interface Tokens {
  access_token: string;
  id_token?: string;
  created_at: number;
}

let stack: Stack;
let app: App;
let other: App;
let user: ApiUser;
beforeAll(async () => {
  stack = await startStack({ gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
  app = await createApp("endpoints-http");
  other = await createApp("endpoints-http-other");
  user = await createUser(stack);
}, 30_000);
afterAll(() => stack.stop());

async function createApp(name: string): Promise<App> {
  const res = await stack.gw.post("/api/v4/applications", {
    token: stack.rootToken,
    form: { name, redirect_uri: "https://client.example.com/cb", scopes: "api read_user openid" },
  });
  if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${res.text}`);
  return res.body as App;
}

const creds = (a: App) => ({ client_id: a.application_id, client_secret: a.secret });

async function token(scope = "api", a: App = app): Promise<Tokens> {
  const res = await stack.gw.post("/oauth/token", {
    form: { grant_type: "password", username: user.username, password: PASSWORD, scope, ...creds(a) },
  });
  if (res.status !== 200) throw new Error(`password grant: ${res.status} ${res.text}`);
  return res.body as Tokens;
}

const bearer = (t: string) => ({ headers: { Authorization: `Bearer ${t}` } });
const INVALID_TOKEN = {
  error: "invalid_token",
  error_description: "The access token is invalid",
  state: "unauthorized",
};

function expectInvalidTokenInfo(res: Reply) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: INVALID_TOKEN });
  expect(res.headers.get("cache-control")).toBe("no-store, no-cache");
  expect(res.headers.get("www-authenticate")).toBe(
    'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"',
  );
}

describe("GET /oauth/token/info", () => {
  test("by access_token parameter and by Bearer header", async () => {
    const t = await token("api read_user");
    const expected = {
      resource_owner_id: user.id,
      scope: ["api", "read_user"],
      expires_in: expect.any(Number),
      application: { uid: app.application_id },
      created_at: t.created_at,
      scopes: ["api", "read_user"],
      expires_in_seconds: expect.any(Number),
    };
    for (const res of [
      await stack.gw.get(`/oauth/token/info?access_token=${t.access_token}`),
      await stack.gw.get("/oauth/token/info", bearer(t.access_token)),
    ]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expected);
      const body = res.body as { expires_in: number; expires_in_seconds: number };
      expect(body.expires_in).toBeGreaterThan(7100);
      expect(body.expires_in).toBeLessThanOrEqual(7200);
      expect(body.expires_in_seconds).toBe(body.expires_in);
    }
  });

  test("an unknown or missing token is 401 with the stray state", async () => {
    expectInvalidTokenInfo(await stack.gw.get(`/oauth/token/info?access_token=${"0".repeat(64)}`));
    expectInvalidTokenInfo(await stack.gw.get("/oauth/token/info"));
  });
});

describe("POST /oauth/revoke", () => {
  test("with the app's credentials: 200 {}, then the token is refused everywhere", async () => {
    const t = await token();
    expect((await stack.gw.get("/api/v4/user", bearer(t.access_token))).status).toBe(200);
    const res = await stack.gw.post("/oauth/revoke", { form: { token: t.access_token, ...creds(app) } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    expectInvalidTokenInfo(await stack.gw.get("/oauth/token/info", bearer(t.access_token)));
    expectError(await stack.gw.get("/api/v4/user", bearer(t.access_token)), 401, REVOKED);
  });

  test("an unknown token is 200 {}", async () => {
    const res = await stack.gw.post("/oauth/revoke", { form: { token: "f".repeat(64), ...creds(app) } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
  });

  test("another app's token is 403 unauthorized_client, without WWW-Authenticate, and stays valid", async () => {
    const t = await token("api", other);
    const res = await stack.gw.post("/oauth/revoke", { form: { token: t.access_token, ...creds(app) } });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: {
        error: "unauthorized_client",
        error_description: "You are not authorized to revoke this token",
      },
    });
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect((await stack.gw.get("/api/v4/user", bearer(t.access_token))).status).toBe(200);
  });
});

describe("POST /oauth/introspect", () => {
  test("with client credentials an active token is described", async () => {
    const t = await token("api read_user");
    const res = await stack.gw.post("/oauth/introspect", { form: { token: t.access_token, ...creds(app) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      active: true,
      scope: "api read_user",
      client_id: app.application_id,
      token_type: "Bearer",
      iat: t.created_at,
    });
    // Doorkeeper says created_at + expires_in; the service counts from now, so allow a second's drift.
    const { exp } = res.body as { exp: number };
    expect(exp - t.created_at).toBeGreaterThanOrEqual(7199);
    expect(exp - t.created_at).toBeLessThanOrEqual(7200);
  });

  test("without any authorization: 400 invalid_request", async () => {
    const t = await token();
    const res = await stack.gw.post("/oauth/introspect", { form: { token: t.access_token } });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: {
        error: "invalid_request",
        error_description:
          "Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.",
      },
    });
  });
});

describe("GET /oauth/userinfo", () => {
  test("an openid token gets the claims, sub as a string; no email without the email scope", async () => {
    const t = await token("openid read_user");
    const res = await stack.gw.get("/oauth/userinfo", bearer(t.access_token));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toMatchObject({
      sub: String(user.id),
      nickname: user.username,
      preferred_username: user.username,
    });
    // Without `email`, GitLab gives the public email, which is blank here and so left out.
    expect(res.body).not.toHaveProperty("email");
  });

  test("without openid: 403 with an empty body; a bad token: 401 with an empty body", async () => {
    const t = await token("api");
    const res = await stack.gw.get("/oauth/userinfo", bearer(t.access_token));
    expect({ status: res.status, text: res.text }).toEqual({ status: 403, text: "" });
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const bad = await stack.gw.get("/oauth/userinfo", bearer("0".repeat(64)));
    expect({ status: bad.status, text: bad.text }).toEqual({ status: 401, text: "" });
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("discovery and keys", () => {
  test.each(["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"])(
    "%s is built from the external URL",
    async (path) => {
      const res = await stack.gw.get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.body).toMatchObject({
        issuer: EXTERNAL_URL,
        authorization_endpoint: `${EXTERNAL_URL}/oauth/authorize`,
        token_endpoint: `${EXTERNAL_URL}/oauth/token`,
        revocation_endpoint: `${EXTERNAL_URL}/oauth/revoke`,
        introspection_endpoint: `${EXTERNAL_URL}/oauth/introspect`,
        userinfo_endpoint: `${EXTERNAL_URL}/oauth/userinfo`,
        jwks_uri: `${EXTERNAL_URL}/oauth/discovery/keys`,
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["plain", "S256"],
      });
    },
  );

  test("the keys are RSA signing keys, and an id_token's kid is among them", async () => {
    const res = await stack.gw.get("/oauth/discovery/keys");
    expect(res.status).toBe(200);
    const { keys } = res.body as { keys: Record<string, string>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", kid: expect.any(String) });
      expect(key.n).toBeTruthy();
      expect(key.e).toBeTruthy();
    }
    const t = await token("openid");
    const header = JSON.parse(Buffer.from(t.id_token!.split(".")[0]!, "base64url").toString()) as {
      kid: string;
      alg: string;
    };
    expect(header.alg).toBe("RS256");
    expect(keys.map((k) => k.kid)).toContain(header.kid);
  });
});
