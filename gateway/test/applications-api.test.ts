/**
 * The admin Applications API (GitLab's lib/api/applications.rb): create, list, delete and renew the
 * secret of instance-wide OAuth applications.
 */
import {
  createUser,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  PASSWORD,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type Stack,
} from "./support";

interface App {
  id: number;
  application_id: string;
  application_name: string;
  callback_url: string;
  confidential: boolean;
  scopes: string[];
  secret?: string;
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
}, 30_000);
afterAll(() => stack.stop());

const REDIRECT = "https://client.example.com/callback";

async function create(form: Record<string, string>, token = stack.rootToken) {
  return stack.gw.post("/api/v4/applications", { token, form });
}

async function createApp(name = unique("app-")): Promise<App> {
  const res = await create({ name, redirect_uri: REDIRECT, scopes: "api read_user" });
  if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${res.text}`);
  return res.body as App;
}

async function list(): Promise<App[]> {
  const res = await stack.gw.get("/api/v4/applications", { token: stack.rootToken });
  expect(res.status).toBe(200);
  return res.body as App[];
}

describe("POST /api/v4/applications", () => {
  test("an admin creates one: 201 with the entity and its secret", async () => {
    const name = unique("app-");
    const res = await create({ name, redirect_uri: REDIRECT, scopes: "api read_user" });
    expect(res.status).toBe(201);
    expectJsonHeaders(res);
    expect(res.body).toEqual({
      id: expect.any(Number),
      application_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      application_name: name,
      callback_url: REDIRECT,
      confidential: true,
      scopes: ["api", "read_user"],
      secret: expect.stringMatching(/^gloas-[0-9a-f]{64}$/),
    });
  });

  test("missing or empty parameters are 400 with Grape's messages", async () => {
    const full = { name: "n", redirect_uri: REDIRECT, scopes: "api" };
    const cases: [Record<string, string>, unknown][] = [
      [{ redirect_uri: REDIRECT, scopes: "api" }, { error: "name is missing" }],
      [{ name: "n", scopes: "api" }, { error: "redirect_uri is missing" }],
      [{ name: "n", redirect_uri: REDIRECT }, { error: "scopes is missing, scopes is empty" }],
      [{ ...full, scopes: "" }, { error: "scopes is empty" }],
      [
        { ...full, redirect_uri: "javascript:alert(1)" },
        { message: { redirect_uri: ["is forbidden by the server."] } },
      ],
      [
        { ...full, scopes: "api everything" },
        { message: { scopes: ["doesn't match configured on the server."] } },
      ],
    ];
    for (const [form, expected] of cases) {
      const res = await create(form);
      expect([form, res.status, res.body]).toEqual([form, 400, expected]);
      expectJsonHeaders(res);
    }
  });

  test("a non-admin gets 403 and nothing is made; anonymous 401", async () => {
    const { secret } = await signedInUser(stack);
    const name = unique("nope-");
    expectError(await create({ name, redirect_uri: REDIRECT, scopes: "api" }, secret), 403, FORBIDDEN);
    const anonymous = await stack.gw.post("/api/v4/applications", {
      form: { name, redirect_uri: REDIRECT, scopes: "api" },
    });
    expectError(anonymous, 401, UNAUTHORIZED);
    expect((await list()).map((a) => a.application_name)).not.toContain(name);
    expectError(await stack.gw.get("/api/v4/applications", { token: secret }), 403, FORBIDDEN);
  });
});

describe("GET, DELETE and renew-secret", () => {
  test("the list has the entity without the secret", async () => {
    const app = await createApp();
    const res = await stack.gw.get("/api/v4/applications", { token: stack.rootToken });
    expect(res.status).toBe(200);
    expectJsonHeaders(res);
    expect(res.text).not.toContain('"secret"');
    const { secret: _secret, ...entity } = app;
    expect((res.body as App[]).find((a) => a.id === app.id)).toEqual(entity);
  });

  test("DELETE is 204 and the application is gone; an unknown id is 404", async () => {
    const app = await createApp();
    const res = await stack.gw.delete(`/api/v4/applications/${app.id}`, { token: stack.rootToken });
    expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: "" });
    expect((await list()).map((a) => a.id)).not.toContain(app.id);
    expectError(await stack.gw.delete(`/api/v4/applications/${app.id}`, { token: stack.rootToken }), 404, {
      message: "404 Application Not Found",
    });
    expectError(await stack.gw.delete("/api/v4/applications/999999999", { token: stack.rootToken }), 404, {
      message: "404 Application Not Found",
    });
  });

  test("renew-secret is 201 with a new secret; the old one no longer authenticates", async () => {
    const app = await createApp();
    const user = await createUser(stack);
    const grant = (secret: string) =>
      stack.gw.post("/oauth/token", {
        form: {
          grant_type: "password",
          username: user.username,
          password: PASSWORD,
          client_id: app.application_id,
          client_secret: secret,
        },
      });
    expect((await grant(app.secret!)).status).toBe(200);
    const res = await stack.gw.post(`/api/v4/applications/${app.id}/renew-secret`, {
      token: stack.rootToken,
    });
    expect(res.status).toBe(201);
    const renewed = res.body as App;
    expect(renewed).toEqual({ ...app, secret: expect.stringMatching(/^gloas-[0-9a-f]{64}$/) });
    expect(renewed.secret).not.toBe(app.secret);
    const old = await grant(app.secret!);
    expect({ status: old.status, error: (old.body as { error: string }).error }).toEqual({
      status: 401,
      error: "invalid_client",
    });
    expect((await grant(renewed.secret!)).status).toBe(200);
  });
});
