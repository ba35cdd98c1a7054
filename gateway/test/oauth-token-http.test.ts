/**
 * POST /oauth/token over HTTP: Doorkeeper's headers and bodies, client authentication (Basic and
 * post), errors, CORS, JSON bodies, the OAuth rate limit, and using the token on /api/v4.
 */
import { randomInt } from "node:crypto";
import { createUser, PASSWORD, startStack, type ApiUser, type Reply, type Stack } from "./support";

interface App {
  id: number;
  application_id: string;
  secret: string;
}

const INVALID_CLIENT = {
  error: "invalid_client",
  error_description:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
};

let stack: Stack;
let app: App;
let user: ApiUser;
beforeAll(async () => {
  // Other test files share the per-IP OAuth counter in Redis; this gateway's budget is out of reach.
  stack = await startStack({ gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
  const res = await stack.gw.post("/api/v4/applications", {
    token: stack.rootToken,
    form: {
      name: "token-http",
      redirect_uri: "https://client.example.com/cb",
      scopes: "api read_user openid",
    },
  });
  if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${res.text}`);
  app = res.body as App;
  user = await createUser(stack);
}, 30_000);
afterAll(() => stack.stop());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const passwordGrant = (extra: Record<string, string> = {}) => ({
  grant_type: "password",
  username: user.username,
  password: PASSWORD,
  ...extra,
});

function expectNoStore(res: Reply) {
  expect(res.headers.get("cache-control")).toBe("no-store, no-cache");
  expect(res.headers.get("pragma")).toBe("no-cache");
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
}

function expectOAuthError(res: Reply, status: number, error: string, description: string) {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error, error_description: description },
  });
  expectNoStore(res);
  expect(res.headers.get("www-authenticate")).toBe(
    `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`,
  );
}

describe("password grant", () => {
  test("client_secret_basic: 200, no-store headers and exactly Doorkeeper's fields", async () => {
    const res = await stack.gw.post("/oauth/token", {
      headers: { Authorization: basic(app.application_id, app.secret) },
      form: passwordGrant({ scope: "api read_user" }),
    });
    expect(res.status).toBe(200);
    expectNoStore(res);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ["access_token", "created_at", "expires_in", "refresh_token", "scope", "token_type"].sort(),
    );
    expect(body).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      token_type: "Bearer",
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      scope: "api read_user",
      created_at: expect.any(Number),
    });
    expect(Math.abs((body.created_at as number) - Date.now() / 1000)).toBeLessThan(60);
    // The access token works on the API as a Bearer token.
    const me = await stack.gw.get("/api/v4/user", {
      headers: { Authorization: `Bearer ${body.access_token as string}` },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id, username: user.username });
  });

  test("client_secret_post works too, and openid adds an id_token", async () => {
    const res = await stack.gw.post("/oauth/token", {
      form: passwordGrant({ client_id: app.application_id, client_secret: app.secret, scope: "openid api" }),
    });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ["access_token", "created_at", "expires_in", "id_token", "refresh_token", "scope", "token_type"].sort(),
    );
    expect(body.scope).toBe("openid api");
    expect(body.id_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test("a JSON body is accepted", async () => {
    const res = await stack.gw.post("/oauth/token", {
      json: passwordGrant({ client_id: app.application_id, client_secret: app.secret, scope: "read_user" }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: "Bearer", scope: "read_user", expires_in: 7200 });
  });
});

describe("errors", () => {
  test("a wrong secret is 401 invalid_client, by Basic (challenged with Basic) or by post", async () => {
    const byBasic = await stack.gw.post("/oauth/token", {
      headers: { Authorization: basic(app.application_id, "gloas-wrong") },
      form: passwordGrant(),
    });
    expect({ status: byBasic.status, body: byBasic.body }).toEqual({ status: 401, body: INVALID_CLIENT });
    expectNoStore(byBasic);
    expect(byBasic.headers.get("www-authenticate")).toBe('Basic realm="Doorkeeper", charset="UTF-8"');
    const res = await stack.gw.post("/oauth/token", {
      form: passwordGrant({ client_id: app.application_id, client_secret: "gloas-wrong" }),
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: INVALID_CLIENT });
  });

  test("missing grant_type is 400 invalid_request; an unknown one 400 unsupported_grant_type", async () => {
    expectOAuthError(
      await stack.gw.post("/oauth/token", { form: { username: user.username, password: PASSWORD } }),
      400,
      "invalid_request",
      "Missing required parameter: grant_type.",
    );
    for (const grant_type of ["magic", "implicit"]) {
      expectOAuthError(
        await stack.gw.post("/oauth/token", {
          form: { grant_type, client_id: app.application_id, client_secret: app.secret },
        }),
        400,
        "unsupported_grant_type",
        "The authorization grant type is not supported by the authorization server.",
      );
    }
  });

  test("GET is 405", async () => {
    const res = await stack.gw.get("/oauth/token");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

test("OPTIONS is a CORS preflight: 204, any origin", async () => {
  const res = await stack.gw.request("OPTIONS", "/oauth/token", {
    headers: { Origin: "https://spa.example.com", "Access-Control-Request-Method": "POST" },
  });
  expect(res.status).toBe(204);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-allow-methods")).toBe("POST");
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
});

test("the OAuth budget per IP: the 4th request of 3 is 429 throttle_oauth_ip", async () => {
  const limited = await stack.addGateway({ CANOPY_RATE_LIMIT_OAUTH: "3", CANOPY_TRUST_PROXY: "true" });
  const ip = `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  await stack.redis.del(`canopy:rl:throttle_oauth_ip:ip:${ip}`);
  const headers = { "X-Forwarded-For": ip };
  // No client is named, so only the per-IP counter moves.
  for (let i = 0; i < 3; i++) {
    expect((await limited.post("/oauth/token", { headers, form: passwordGrant() })).status).toBe(200);
  }
  const res = await limited.post("/oauth/token", { headers, form: passwordGrant() });
  expect(res.status).toBe(429);
  expect(res.headers.get("ratelimit-name")).toBe("throttle_oauth_ip");
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
});

test("the password grant spends from the sign-in budget per IP: the 4th of 3 is 429 throttle_sign_in", async () => {
  const limited = await stack.addGateway({ CANOPY_RATE_LIMIT_SIGN_IN: "3", CANOPY_TRUST_PROXY: "true" });
  const ip = `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  await stack.redis.del(`canopy:rl:throttle_sign_in:ip:${ip}`);
  const headers = { "X-Forwarded-For": ip };
  const wrong = { ...passwordGrant(), password: "wrong-password" };
  for (let i = 0; i < 3; i++)
    expect((await limited.post("/oauth/token", { headers, form: wrong })).status).toBe(400);
  const res = await limited.post("/oauth/token", { headers, form: passwordGrant() });
  expect(res.status).toBe(429);
  expect(res.headers.get("ratelimit-name")).toBe("throttle_sign_in");
  // Other grants do not spend from it.
  const other = await limited.post("/oauth/token", {
    headers,
    form: { grant_type: "client_credentials", client_id: app.application_id, client_secret: app.secret },
  });
  expect(other.status).not.toBe(429);
});
