import { auth } from "@canopy/protos";
import {
  INVALID_CLIENT,
  REDIRECT,
  newApp,
  newUser,
  refusalOf,
  startOAuthHarness,
  tokensFor,
  type OAuthHarness,
} from "./oauth-support";
import { failed, failure, status, unique } from "./support";

// OAuth applications (GitLab's /oauth/applications and the admin Applications API): validation with
// GitLab's texts, the secret shown once, per-owner and instance lists, renewal and deletion.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(() => h.stop());

const create = async (fields: { name?: string; redirectUri?: string; scopes?: string[] }) => {
  const { actor } = await newUser(h);
  return h.oauth.createApplication({
    actor,
    name: "name" in fields ? fields.name : "App",
    redirectUri: "redirectUri" in fields ? fields.redirectUri : REDIRECT,
    scopes: fields.scopes ?? ["api"],
    confidential: true,
  });
};

describe("CreateApplication: validation", () => {
  it.each([
    ["a blank name", { name: "  " }, { name: ["can't be blank"] }],
    [
      "a name over 255 characters",
      { name: "x".repeat(256) },
      { name: ["is too long (maximum is 255 characters)"] },
    ],
    ["no redirect URI", { redirectUri: "" }, { redirect_uri: ["can't be blank"] }],
    [
      "a javascript: redirect URI",
      { redirectUri: "javascript:alert(1)" },
      { redirect_uri: ["is forbidden by the server."] },
    ],
    [
      "a data: redirect URI",
      { redirectUri: "data:text/html,hi" },
      { redirect_uri: ["is forbidden by the server."] },
    ],
    [
      "a vbscript: redirect URI",
      { redirectUri: "vbscript:msgbox" },
      { redirect_uri: ["is forbidden by the server."] },
    ],
    [
      "a redirect URI with a fragment",
      { redirectUri: "https://a.example/cb#x" },
      { redirect_uri: ["cannot contain a fragment."] },
    ],
    ["a malformed redirect URI", { redirectUri: "http://[::1" }, { redirect_uri: ["must be a valid URI."] }],
    ["a relative redirect URI", { redirectUri: "/callback" }, { redirect_uri: ["must be an absolute URI."] }],
    [
      "localhost used as a scheme",
      { redirectUri: "localhost:3000" },
      { redirect_uri: ["must specify a scheme."] },
    ],
    [
      "a forbidden URI among good ones",
      { redirectUri: `${REDIRECT}\njavascript:alert(1)` },
      { redirect_uri: ["is forbidden by the server."] },
    ],
    [
      "an unknown scope",
      { scopes: ["api", "bogus"] },
      { scopes: ["doesn't match configured on the server."] },
    ],
  ])("refuses %s with GitLab's message", async (_what, fields, fieldErrors) => {
    expect(await failure(create(fields))).toEqual(failed(status.INVALID_ARGUMENT, { fieldErrors }));
  });

  it("reports every invalid field at once", async () => {
    const answer = await failure(create({ name: "", redirectUri: "javascript:alert(1)", scopes: ["nope"] }));
    expect(answer.fieldErrors).toEqual({
      name: ["can't be blank"],
      redirect_uri: ["is forbidden by the server."],
      scopes: ["doesn't match configured on the server."],
    });
  });

  it.each([
    ["several URIs, one per line", `${REDIRECT}\nhttps://other.example/cb`],
    ["plain http", "http://client.example/cb"],
    ["a custom scheme", "com.example.app:/oauth/cb"],
    ["the out-of-band URI", "urn:ietf:wg:oauth:2.0:oob"],
  ])("accepts %s", async (_what, redirectUri) => {
    const created = await create({ redirectUri });
    expect(created.application!.redirectUri).toBe(redirectUri);
  });

  it("refuses a caller who is not signed in", async () => {
    const call = h.oauth.createApplication({ name: "x", redirectUri: REDIRECT, scopes: ["api"] });
    expect((await failure(call)).code).toBe(status.UNAUTHENTICATED);
  });
});

describe("CreateApplication: what it answers", () => {
  it("answers the application with a client id of 64 hex and a gloas- secret, shown this once", async () => {
    const { user, actor } = await newUser(h);
    const name = unique("app-");
    const created = await h.oauth.createApplication({
      actor,
      name,
      redirectUri: REDIRECT,
      scopes: ["api", "read_user", "api"],
      confidential: false,
    });
    expect(created.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
    expect(created.application).toEqual({
      id: expect.any(Number),
      name,
      uid: expect.stringMatching(/^[0-9a-f]{64}$/),
      redirectUri: REDIRECT,
      scopes: ["api", "read_user"],
      confidential: false,
      trusted: false,
      ownerId: user.id,
      createdAt: expect.any(Date),
    });
    const { applications } = await h.oauth.listApplications({ actor });
    expect(applications).toEqual([created.application]);
    expect(JSON.stringify(applications)).not.toContain(created.secret);
    const { rows } = await h.db.query("SELECT secret_digest FROM auth.oauth_applications WHERE id = $1", [
      created.application!.id,
    ]);
    expect(rows[0].secret_digest).not.toContain(created.secret.slice(6));
  });

  it("lets only an administrator mark an application trusted", async () => {
    const { actor } = await newUser(h);
    const mine = await h.oauth.createApplication({
      actor,
      name: "x",
      redirectUri: REDIRECT,
      scopes: ["api"],
      trusted: true,
    });
    expect(mine.application!.trusted).toBe(false);
    const root = await h.oauth.createApplication({
      actor: h.admin,
      name: "x",
      redirectUri: REDIRECT,
      scopes: ["api"],
      trusted: true,
    });
    expect(root.application!.trusted).toBe(true);
  });
});

describe("ListApplications", () => {
  it("lists only the caller's own applications", async () => {
    const alice = await newUser(h);
    const bob = await newUser(h);
    const a1 = await newApp(h, { owner: alice.actor });
    const a2 = await newApp(h, { owner: alice.actor });
    await newApp(h, { owner: bob.actor });
    const { applications } = await h.oauth.listApplications({ actor: alice.actor });
    expect(applications.map((a) => a.id)).toEqual([a1.app.id, a2.app.id]);
  });

  it("lists instance-wide applications (no owner) for administrators only", async () => {
    const instance = await newApp(h, { instance: true });
    expect(instance.app.ownerId).toBe(0);
    const { applications } = await h.oauth.listApplications({ actor: h.admin, instance: true });
    expect(applications.map((a) => a.id)).toContain(instance.app.id);
    expect(applications.every((a) => a.ownerId === 0)).toBe(true);
    const { actor } = await newUser(h);
    expect((await failure(h.oauth.listApplications({ actor, instance: true }))).code).toBe(
      status.PERMISSION_DENIED,
    );
    const create = h.oauth.createApplication({
      actor,
      instance: true,
      name: "x",
      redirectUri: REDIRECT,
      scopes: ["api"],
    });
    expect((await failure(create)).code).toBe(status.PERMISSION_DENIED);
  });
});

describe("RenewApplicationSecret", () => {
  it("replaces the secret: the old one then fails client authentication, the new one works", async () => {
    const { actor } = await newUser(h);
    const a = await newApp(h, { owner: actor, scopes: ["api"] });
    const renewed = await h.oauth.renewApplicationSecret({ actor, id: a.app.id });
    expect(renewed.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
    expect(renewed.secret).not.toBe(a.secret);
    expect(renewed.application).toEqual(a.app);
    const grant = (secret: string) =>
      h.oauth.token({ grantType: "client_credentials", client: a.client({ secret }) });
    expect((await grant(a.secret)).error).toEqual(INVALID_CLIENT);
    const ok = await grant(renewed.secret);
    expect(ok.error).toBeUndefined();
    expect(ok.scope).toBe("api");
  });

  it("answers NOT_FOUND for someone else's application, and for an instance one without instance", async () => {
    const owner = await newUser(h);
    const other = await newUser(h);
    const a = await newApp(h, { owner: owner.actor });
    expect(await failure(h.oauth.renewApplicationSecret({ actor: other.actor, id: a.app.id }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Application" }),
    );
    const instance = await newApp(h, { instance: true });
    expect(
      (await failure(h.oauth.renewApplicationSecret({ actor: h.admin, id: instance.app.id }))).code,
    ).toBe(status.NOT_FOUND);
    const renewed = await h.oauth.renewApplicationSecret({
      actor: h.admin,
      id: instance.app.id,
      instance: true,
    });
    expect(renewed.secret).not.toBe(instance.secret);
  });
});

describe("DeleteApplication", () => {
  it("deletes the application and its tokens: they stop authenticating at once", async () => {
    const { actor } = await newUser(h);
    const a = await newApp(h, { owner: actor });
    const pair = await tokensFor(h, a, actor);
    expect(await refusalOf(h, pair.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    await h.oauth.deleteApplication({ actor, id: a.app.id });
    expect(await refusalOf(h, pair.accessToken)).toBe(auth.Refusal.REFUSAL_UNKNOWN);
    expect((await h.oauth.listApplications({ actor })).applications).toEqual([]);
    const refresh = await h.oauth.token({
      grantType: "refresh_token",
      client: a.client(),
      refreshToken: pair.refreshToken,
    });
    expect(refresh.error).toEqual(INVALID_CLIENT);
  });

  it("answers NOT_FOUND for someone else's application and leaves it alone", async () => {
    const owner = await newUser(h);
    const other = await newUser(h);
    const a = await newApp(h, { owner: owner.actor });
    expect(await failure(h.oauth.deleteApplication({ actor: other.actor, id: a.app.id }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Application" }),
    );
    expect((await h.oauth.listApplications({ actor: owner.actor })).applications).toHaveLength(1);
  });
});
