import type { common, oauth } from "@canopy/protos";
import {
  E,
  REDIRECT,
  err,
  missing,
  newApp,
  newUser,
  pkce,
  redirectParams,
  startOAuthHarness,
  type App,
  type OAuthHarness,
} from "./oauth-support";
import { failure, status } from "./support";

// GET/POST /oauth/authorize as PreAuthorize and Authorize, refusals: Doorkeeper's check order, errors
// that are shown on a page (unknown client, bad redirect) versus sent back to the client with state,
// and the PKCE rules for public clients.
let h: OAuthHarness;
let user: common.Actor;
let confidential: App;
let publicApp: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  user = (await newUser(h)).actor;
  confidential = await newApp(h, { scopes: ["api", "read_user", "openid"] });
  publicApp = await newApp(h, { scopes: ["api", "read_user"], confidential: false });
});
afterAll(() => h.stop());

const { challenge } = pkce();
const request = (a: App, fields: Partial<oauth.AuthorizeRequest> = {}) => ({
  actor: user,
  clientId: a.app.uid,
  redirectUri: REDIRECT,
  responseType: "code",
  scope: "api",
  state: "st-1",
  ...fields,
});
const pre = (a: App, fields: Partial<oauth.AuthorizeRequest> = {}) =>
  h.oauth.preAuthorize(request(a, fields));

const sentBack = (error: string, description: string) => ({
  error,
  error_description: description,
  state: "st-1",
});

describe("PreAuthorize: errors shown on a page, never sent to the client", () => {
  it.each([
    [
      "no client_id (checked first)",
      { clientId: "", redirectUri: "javascript:x", responseType: "" },
      missing("client_id"),
    ],
    [
      "an unknown client",
      { clientId: "f".repeat(64), redirectUri: "https://evil.example/" },
      err("invalid_client", E.invalidClient),
    ],
    [
      "no redirect_uri, though only one is registered",
      { redirectUri: "" },
      err("invalid_redirect_uri", E.invalidRedirectUri),
    ],
    [
      "another redirect_uri",
      { redirectUri: "https://evil.example/callback" },
      err("invalid_redirect_uri", E.invalidRedirectUri),
    ],
    [
      "a longer path than the registered one",
      { redirectUri: `${REDIRECT}/more` },
      err("invalid_redirect_uri", E.invalidRedirectUri),
    ],
    [
      "an added query",
      { redirectUri: `${REDIRECT}?next=/` },
      err("invalid_redirect_uri", E.invalidRedirectUri),
    ],
    [
      "a bad redirect before a bad response_type",
      { redirectUri: "https://evil.example/", responseType: "x" },
      err("invalid_redirect_uri", E.invalidRedirectUri),
    ],
  ])("%s", async (_what, fields, error) => {
    expect(await pre(confidential, fields)).toMatchObject({
      error,
      errorRedirect: "",
      scopes: [],
      skipConsent: false,
    });
    const answer = await h.oauth.authorize({ ...request(confidential, fields), approved: true });
    expect(answer).toEqual({ error, redirect: "" });
  });

  it("needs a signed-in user", async () => {
    expect((await failure(h.oauth.preAuthorize({ ...request(confidential), actor: undefined }))).code).toBe(
      status.UNAUTHENTICATED,
    );
  });
});

describe("PreAuthorize: errors sent back to the client, with state", () => {
  it.each([
    [
      "no response_type",
      { responseType: "" },
      "invalid_request",
      "Missing required parameter: response_type.",
    ],
    [
      "an unsupported response_type",
      { responseType: "id_token" },
      "unsupported_response_type",
      E.unsupportedResponseType,
    ],
    [
      "a bad response_type before a bad scope",
      { responseType: "code id_token", scope: "sudo" },
      "unsupported_response_type",
      E.unsupportedResponseType,
    ],
    [
      "an unsupported response_mode",
      { responseMode: "form_post" },
      "unsupported_response_mode",
      E.unsupportedResponseMode,
    ],
    ["a scope the application lacks", { scope: "api sudo" }, "invalid_scope", E.invalidScope],
    ["an unknown scope", { scope: "api bogus" }, "invalid_scope", E.invalidScope],
    ["a tab in the scope", { scope: "api\tread_user" }, "invalid_scope", E.invalidScope],
    ["a newline in the scope", { scope: "api\nread_user" }, "invalid_scope", E.invalidScope],
    [
      "a bad scope before a bad challenge method",
      { scope: "sudo", codeChallenge: challenge, codeChallengeMethod: "S512" },
      "invalid_scope",
      E.invalidScope,
    ],
    [
      "an unknown code_challenge_method",
      { codeChallenge: challenge, codeChallengeMethod: "S512" },
      "invalid_code_challenge_method",
      E.invalidCodeChallengeMethod,
    ],
    [
      "a challenge without a method (no fallback to plain)",
      { codeChallenge: challenge },
      "invalid_code_challenge_method",
      E.invalidCodeChallengeMethod,
    ],
    [
      "a malformed S256 challenge",
      { codeChallenge: "short", codeChallengeMethod: "S256" },
      "invalid_request",
      "The code_challenge is malformed.",
    ],
  ])("%s", async (_what, fields, code, description) => {
    const answer = await pre(confidential, fields);
    expect(answer.error).toEqual(err(code, description));
    expect(redirectParams(answer.errorRedirect)).toEqual(sentBack(code, description));
    const authorized = await h.oauth.authorize({ ...request(confidential, fields), approved: true });
    expect(authorized.error).toEqual(err(code, description));
    expect(redirectParams(authorized.redirect)).toEqual(sentBack(code, description));
  });

  it("omits state when none was sent, and uses the fragment for response_mode=fragment", async () => {
    const answer = await pre(confidential, { scope: "sudo", state: "", responseMode: "fragment" });
    expect(redirectParams(answer.errorRedirect, true)).toEqual({
      error: "invalid_scope",
      error_description: E.invalidScope,
    });
  });

  it("asks a public client for PKCE with S256", async () => {
    const none = await pre(publicApp);
    expect(none.error).toEqual(err("invalid_request", "Code challenge is required."));
    expect(redirectParams(none.errorRedirect)).toEqual(
      sentBack("invalid_request", "Code challenge is required."),
    );
    const plain = await pre(publicApp, { codeChallenge: pkce().verifier, codeChallengeMethod: "plain" });
    expect(plain.error).toEqual(
      err("invalid_request", "Public clients must use code_challenge_method S256."),
    );
    const s256 = await pre(publicApp, { codeChallenge: challenge, codeChallengeMethod: "S256" });
    expect(s256.error).toBeUndefined();
  });

  it("lets a confidential client do without PKCE, or use plain", async () => {
    expect((await pre(confidential)).error).toBeUndefined();
    const plain = await pre(confidential, { codeChallenge: pkce().verifier, codeChallengeMethod: "plain" });
    expect(plain.error).toBeUndefined();
  });
});
