/**
 * Shared setup for the OAuth provider's contract tests. Like support.ts, each file starts a real auth
 * service in-process and talks to it only over gRPC (OAuthService and AuthService); SQL is used only
 * to age codes and tokens and to read what was stored. `startOAuthHarness(env)` takes OAuth switches,
 * so a file can run a second instance in the same database with GitLab's behaviour.
 */
import { createHash, randomBytes } from "node:crypto";
import { createPool, type Pool, type PromiseClient } from "@canopy/kit";
import { filledClient, type FilledClient } from "@canopy/kit/testing";
import { auth, common, oauth } from "@canopy/protos";
import type { AuthConfig } from "../src/config";
import { tokenDigest } from "../src/domain/tokens";
import { authRpc, newUserAttributes, startService, testEnv, type Rpc, type Service } from "./support";

export type OAuthRpc = FilledClient<PromiseClient<typeof oauth.OAuthServiceService>>;
export type AuthRpc = Rpc;

const OAUTH_REQUESTS = {
  createApplication: oauth.CreateApplicationRequest,
  listApplications: oauth.ListApplicationsRequest,
  deleteApplication: oauth.DeleteApplicationRequest,
  renewApplicationSecret: oauth.RenewApplicationSecretRequest,
  signIn: oauth.SignInRequest,
  preAuthorize: oauth.AuthorizeRequest,
  authorize: oauth.AuthorizeRequest,
  token: oauth.TokenRequest,
  tokenInfo: oauth.TokenInfoRequest,
  revoke: oauth.RevokeRequest,
  introspect: oauth.IntrospectRequest,
  userInfo: oauth.UserInfoRequest,
  getJwks: oauth.GetJwksRequest,
  listSignInProviders: oauth.ListSignInProvidersRequest,
};

/** The error texts of the reference (§2.1), written out here so the tests do not trust the source. */
export const E = {
  invalidRequest:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalidClient:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalidGrant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unsupportedGrantType: "The authorization grant type is not supported by the authorization server.",
  invalidScope: "The requested scope is invalid, unknown, or malformed.",
  invalidRedirectUri: "The redirect URI included is not valid.",
  unsupportedResponseType: "The authorization server does not support this response type.",
  unsupportedResponseMode: "The authorization server does not support this response mode.",
  accessDenied: "The resource owner or authorization server denied the request.",
  invalidCodeChallengeMethod: "The code_challenge_method must be one of plain, S256.",
  invalidToken: "The access token is invalid",
  notYours: "You are not authorized to revoke this token",
} as const;

export const err = (error: string, description: string) => ({ error, description });
export const missing = (name: string) => err("invalid_request", `Missing required parameter: ${name}.`);
export const INVALID_CLIENT = err("invalid_client", E.invalidClient);
export const INVALID_GRANT = err("invalid_grant", E.invalidGrant);
export const INVALID_SCOPE = err("invalid_scope", E.invalidScope);

/** What a reply to a request that proved its client with the secret carries (the gateway's rate-limit cue). */
export const PROVED = { clientAuthenticated: true } as const;

export const EXTERNAL_URL = "https://canopy.test";

export interface OAuthHarness {
  service: Service;
  oauth: OAuthRpc;
  auth: AuthRpc;
  /** A pool on the test database (search_path `auth`). */
  db: Pool;
  config: AuthConfig;
  admin: common.Actor;
  stop(): Promise<void>;
}

/** Starts an auth service with these OAuth switches (on top of the test defaults). */
export async function startOAuthHarness(env: Record<string, string> = {}): Promise<OAuthHarness> {
  const service = await startService(testEnv(undefined, { CANOPY_EXTERNAL_URL: EXTERNAL_URL, ...env }));
  const { config } = service;
  const auth = authRpc(service);
  const db = createPool({ url: config.CANOPY_DATABASE_URL, schema: "auth" });
  const { actor } = await auth.authenticate({ token: config.CANOPY_ROOT_TOKEN });
  if (!actor) throw new Error("the root token did not authenticate");
  return {
    service,
    oauth: filledClient(service.client(oauth.OAuthServiceService), OAUTH_REQUESTS),
    auth,
    db,
    config,
    admin: actor,
    stop: async () => {
      await db.end();
      await service.stop();
    },
  };
}

export const PASSWORD = "s3cret-passw0rd";

/** A new user (made by root) and the actor a signed-in browser session of theirs carries. */
export async function newUser(h: OAuthHarness, overrides: auth.UserAttributes = {}) {
  const user = await h.auth.createUser({
    actor: h.admin,
    attributes: newUserAttributes({ password: PASSWORD, ...overrides }),
  });
  return { user, actor: sessionActor(user) };
}

export const sessionActor = (user: auth.User): common.Actor => ({
  userId: user.id,
  username: user.username,
  admin: user.admin,
  external: user.external,
  scopes: [],
  tokenKind: common.TokenKind.TOKEN_KIND_SESSION,
  tokenId: 0,
  impersonatorId: 0,
});

export const REDIRECT = "https://client.example/callback";
export const OOB_URI = "urn:ietf:wg:oauth:2.0:oob";

export interface App {
  app: oauth.Application;
  secret: string;
  /** client_secret_post credentials; `secret: false` sends the client_id alone. */
  client(options?: { secret?: string | false }): oauth.ClientCredentials;
}

/** Registers an application owned by `owner` (root when omitted). */
export async function newApp(
  h: OAuthHarness,
  options: Partial<Omit<oauth.CreateApplicationRequest, "actor">> & { owner?: common.Actor } = {},
): Promise<App> {
  const { owner, ...rest } = options;
  const created = await h.oauth.createApplication({
    actor: owner ?? h.admin,
    name: "Test app",
    redirectUri: REDIRECT,
    scopes: ["api", "read_user", "openid", "profile", "email"],
    confidential: true,
    ...rest,
  });
  const app = created.application!;
  const client = (o: { secret?: string | false } = {}) => ({
    clientId: app.uid,
    clientSecret: o.secret === false ? "" : (o.secret ?? created.secret),
    method: "post",
  });
  return { app, secret: created.secret, client };
}

/** A PKCE pair: a 43..128 character verifier and its S256 challenge. */
export function pkce(verifier = randomBytes(48).toString("base64url")) {
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface CodeOptions {
  scope?: string;
  state?: string;
  nonce?: string;
  redirectUri?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  authTime?: Date;
}

/** Approves an authorization request as `actor` and answers the redirect it produced. */
export async function approve(h: OAuthHarness, a: App, actor: common.Actor, o: CodeOptions = {}) {
  const answer = await h.oauth.authorize({
    actor,
    clientId: a.app.uid,
    redirectUri: o.redirectUri ?? REDIRECT,
    responseType: "code",
    scope: o.scope ?? "api",
    state: o.state ?? "",
    nonce: o.nonce ?? "",
    codeChallenge: o.codeChallenge ?? "",
    codeChallengeMethod: o.codeChallengeMethod ?? "",
    authTime: o.authTime,
    approved: true,
  });
  if (answer.error) throw new Error(`authorize refused: ${answer.error.error} ${answer.error.description}`);
  return new URL(answer.redirect);
}

/** A fresh authorization code for `actor`. */
export async function codeFor(h: OAuthHarness, a: App, actor: common.Actor, o: CodeOptions = {}) {
  const code = (await approve(h, a, actor, o)).searchParams.get("code");
  if (!code) throw new Error("no code in the redirect");
  return code;
}

/** Exchanges a code with the application's credentials. */
export const exchange = (
  h: OAuthHarness,
  a: App,
  code: string,
  extra: Partial<Omit<oauth.TokenRequest, "client">> & { client?: oauth.ClientCredentials } = {},
) =>
  h.oauth.token({
    grantType: "authorization_code",
    client: a.client(),
    code,
    redirectUri: REDIRECT,
    ...extra,
  });

/** A code flow to the end: a live token pair for `actor`, or the test fails. */
export async function tokensFor(h: OAuthHarness, a: App, actor: common.Actor, o: CodeOptions = {}) {
  const reply = await exchange(h, a, await codeFor(h, a, actor, o));
  if (reply.error) throw new Error(`token refused: ${reply.error.error}`);
  return reply;
}

/** What Authenticate says about a token. */
export const refusalOf = async (h: OAuthHarness, token: string) =>
  (await h.auth.authenticate({ token })).refusal;

export const HEX64 = /^[0-9a-f]{64}$/;

/** The stored digest of a token, code or refresh token, as the service computes it. */
export const digestOf = (h: OAuthHarness, value: string) => tokenDigest(h.service.deps.tokenKey, value);

/** Moves an access token's creation back by `seconds` (it then has that much less to live). */
export const ageToken = (h: OAuthHarness, accessToken: string, seconds: number) =>
  h.db.query(
    "UPDATE auth.oauth_tokens SET created_at = created_at - make_interval(secs => $2) WHERE token_digest = $1",
    [digestOf(h, accessToken), seconds],
  );

/** The stored row of an access token. */
export async function tokenRow(h: OAuthHarness, accessToken: string) {
  const { rows } = await h.db.query<{ id: number; family_id: number; revoked_at: Date | null }>(
    "SELECT id, family_id, revoked_at FROM auth.oauth_tokens WHERE token_digest = $1",
    [digestOf(h, accessToken)],
  );
  return rows[0];
}

/** The parameters of a redirect to REDIRECT, from its query (or, inFragment, its fragment). */
export function redirectParams(redirect: string, inFragment = false) {
  const url = new URL(redirect);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  return Object.fromEntries(new URLSearchParams(inFragment ? url.hash.slice(1) : url.search));
}
