import { auth, type oauth } from "@canopy/protos";
import {
  HEX64,
  INVALID_CLIENT,
  INVALID_SCOPE,
  newApp,
  refusalOf,
  startOAuthHarness,
  type App,
  type OAuthHarness,
  PROVED,
} from "./oauth-support";

// grant_type=client_credentials: the application itself, proven by its secret; a token of no user,
// without a refresh token, that cannot call the API as anybody.
let h: OAuthHarness;
let a: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  a = await newApp(h, { scopes: ["api", "read_user", "openid"] });
  publicApp = await newApp(h, { scopes: ["api"], confidential: false });
});
afterAll(() => h.stop());

const grant = (fields: Partial<oauth.TokenRequest> = {}) =>
  h.oauth.token({ grantType: "client_credentials", client: a.client(), ...fields });

describe("client_credentials", () => {
  it("issues a Bearer token with the default scope api and no refresh token", async () => {
    const reply = await grant();
    expect(reply).toEqual({
      ...PROVED,
      accessToken: expect.stringMatching(HEX64),
      tokenType: "Bearer",
      expiresIn: 7200,
      refreshToken: "",
      scope: "api",
      createdAt: expect.any(Number),
      idToken: "",
    });
    const { rows } = await h.db.query(
      "SELECT refresh_digest, user_id FROM auth.oauth_tokens WHERE application_id = $1",
      [a.app.id],
    );
    expect(rows).toContainEqual({ refresh_digest: null, user_id: null });
  });

  it("gives what was asked within the application's scopes, and no ID token even with openid", async () => {
    const reply = await grant({ scope: "read_user openid" });
    expect(reply).toMatchObject({ scope: "read_user openid", idToken: "", refreshToken: "" });
  });

  it("is a token of no user: TokenInfo says owner 0, Authenticate refuses it as unknown", async () => {
    const reply = await grant();
    const info = await h.oauth.tokenInfo({ token: reply.accessToken });
    expect(info).toMatchObject({ resourceOwnerId: 0, applicationUid: a.app.uid, scopes: ["api"] });
    expect(await refusalOf(h, reply.accessToken)).toBe(auth.Refusal.REFUSAL_UNKNOWN);
  });

  it.each([
    ["no client", () => ({ client: undefined }), INVALID_CLIENT],
    ["the client_id without the secret", () => ({ client: a.client({ secret: false }) }), INVALID_CLIENT],
    ["a wrong secret", () => ({ client: a.client({ secret: "gloas-x" }) }), INVALID_CLIENT],
    [
      "a public client's client_id alone",
      () => ({ client: publicApp.client({ secret: false }) }),
      INVALID_CLIENT,
    ],
    ["a scope the application lacks", () => ({ scope: "api sudo" }), INVALID_SCOPE],
    ["an unknown scope", () => ({ scope: "bogus" }), INVALID_SCOPE],
    ["a tab in the scope", () => ({ scope: "api\tread_user" }), INVALID_SCOPE],
  ])("refuses %s", async (_what, change, error) => {
    const reply = await grant(change());
    expect(reply.error).toEqual(error);
    expect(reply.accessToken).toBe("");
  });

  it("refuses an application without api when no scope is asked for", async () => {
    const noApi = await newApp(h, { scopes: ["read_user"] });
    expect((await grant({ client: noApi.client() })).error).toEqual(INVALID_SCOPE);
  });
});
