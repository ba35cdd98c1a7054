/**
 * Shared setup for the auth service's contract tests. Each test file starts a real service
 * in-process with the kit's harness (the same skeleton main.ts runs, gRPC on a free port) against
 * the run's throwaway database, and talks to it only through a real gRPC client. SQL is used for what
 * the API cannot do (ageing a token, reading what is stored) and for counting rows.
 *
 * Every test file shares the one `auth` schema, and files run in parallel: names are unique per test
 * (see `unique`) and no test counts rows it did not create itself.
 */
import { randomBytes } from "node:crypto";
import { status } from "@grpc/grpc-js";
import { createPool, type Pool, type PromiseClient } from "@canopy/kit";
import {
  filledClient,
  startTestService,
  unique,
  waitFor,
  type FilledClient,
  type TestService,
} from "@canopy/kit/testing";
import { AUTH_IDEMPOTENT_METHODS, auth, userState, type common } from "@canopy/protos";
import type { AuthConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { authServiceDefinition } from "../src/service";

export { status, unique, waitFor };

// Real PostgreSQL, NATS and argon2 hashing, with every test file running at once: 5 s is too tight.
jest.setTimeout(20_000);

export type Service = TestService<AuthConfig, Deps>;
type Definition = typeof auth.AuthServiceService;
export type AuthClient = PromiseClient<Definition>;
/** The gRPC client with proto3 defaults filled in: `rpc.listUsers({ actor, search: "x" })`. */
export type Rpc = FilledClient<AuthClient>;

export const AUTH_REQUESTS = {
  authenticate: auth.AuthenticateRequest,
  getUser: auth.GetUserRequest,
  listUsers: auth.ListUsersRequest,
  createUser: auth.CreateUserRequest,
  updateUser: auth.UpdateUserRequest,
  deleteUser: auth.DeleteUserRequest,
  createPersonalAccessToken: auth.CreatePersonalAccessTokenRequest,
  listPersonalAccessTokens: auth.ListPersonalAccessTokensRequest,
  getPersonalAccessToken: auth.GetPersonalAccessTokenRequest,
  revokePersonalAccessToken: auth.RevokePersonalAccessTokenRequest,
  prepareTwoFactor: auth.PrepareTwoFactorRequest,
  enableTwoFactor: auth.EnableTwoFactorRequest,
  disableTwoFactor: auth.DisableTwoFactorRequest,
  verifySignInCode: auth.VerifySignInCodeRequest,
  deleteUserIdentity: auth.DeleteUserIdentityRequest,
};

/** A real client of `service`'s AuthService, requests filled with defaults. */
export const authRpc = (service: Service): Rpc =>
  filledClient(
    service.client(auth.AuthServiceService, { idempotent: AUTH_IDEMPOTENT_METHODS }),
    AUTH_REQUESTS,
  );

/**
 * One of GitLab's state actions (block, unblock, ...) through the service's UserStateService, as the
 * gateway asks for it; the user's state after it.
 */
export async function changeUserState(
  service: Service,
  actor: common.Actor | undefined,
  userId: number,
  action: userState.UserStateAction,
): Promise<string> {
  const client = filledClient(service.client(userState.UserStateServiceService, { idempotent: [] }), {
    changeUserState: userState.ChangeUserStateRequest,
  });
  return (await client.changeUserState({ actor, userId, action })).state;
}
export const { UserStateAction } = userState;

/** A value CANOPY_ROOT_TOKEN accepts. */
export const newRootToken = () => `glpat-${randomBytes(24).toString("base64url")}`;

/** The environment a test service runs with: its own root token, on top of the run's. */
export const testEnv = (rootToken = newRootToken(), env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  CANOPY_ROOT_PASSWORD: "root-password-for-tests",
  CANOPY_ROOT_TOKEN: rootToken,
  ...env,
});

export const startService = (env: NodeJS.ProcessEnv = testEnv()) =>
  startTestService(authServiceDefinition, { env });

export interface Harness {
  service: Service;
  rpc: Rpc;
  /** A pool on the test database (search_path `auth`), apart from the service's own. */
  db: Pool;
  config: AuthConfig;
  rootToken: string;
  /** root, as Authenticate(root token) describes it. */
  admin: common.Actor;
  stop(): Promise<void>;
}

export async function startHarness(env: NodeJS.ProcessEnv = testEnv()): Promise<Harness> {
  const service = await startService(env);
  const rpc = authRpc(service);
  const { config } = service;
  const db = createPool({ url: config.CANOPY_DATABASE_URL, schema: "auth" });
  const { actor } = await rpc.authenticate({ token: config.CANOPY_ROOT_TOKEN });
  if (!actor) throw new Error("the root token did not authenticate");
  return {
    service,
    rpc,
    db,
    config,
    rootToken: config.CANOPY_ROOT_TOKEN!,
    admin: actor,
    stop: async () => {
      await db.end();
      await service.stop();
    },
  };
}

/** Attributes of a valid new user, unique to this call. */
export function newUserAttributes(overrides: auth.UserAttributes = {}): auth.UserAttributes {
  const username = unique("user_");
  return {
    username,
    email: `${username}@example.com`,
    name: `User ${username}`,
    password: "s3cret-passw0rd",
    ...overrides,
  };
}

/**
 * Who makes users and tokens: root through a client of auth (this harness, or another service's
 * harness that runs auth beside its own service).
 */
export type UserMaker = Pick<Harness, "rpc" | "admin">;

/** Creates a user as root. */
export const createUser = (h: UserMaker, overrides: auth.UserAttributes = {}) =>
  h.rpc.createUser({ actor: h.admin, attributes: newUserAttributes(overrides) });

export interface SignedIn {
  user: auth.User;
  /** The token's secret. */
  secret: string;
  token: auth.PersonalAccessToken;
  /** What Authenticate(secret) answers: what the gateway would pass on. */
  actor: common.Actor;
}

/** Gives `user` a new token (made by root) and authenticates with it, as the gateway would. */
export async function signIn(h: UserMaker, user: auth.User, scopes = ["api"]): Promise<SignedIn> {
  const created = await h.rpc.createPersonalAccessToken({
    actor: h.admin,
    userId: user.id,
    name: unique("token-"),
    scopes,
  });
  const { actor } = await h.rpc.authenticate({ token: created.secret });
  if (!actor) throw new Error(`token of ${user.username} did not authenticate`);
  return { user, secret: created.secret, token: created.token!, actor };
}

/** A new non-admin user with a token. */
export const newSignedInUser = async (h: UserMaker, overrides: auth.UserAttributes = {}) =>
  signIn(h, await createUser(h, overrides));

export { failure, failed, type Failure } from "@canopy/kit/testing";

/** Rows in `auth.users` whose username or email is one of these (case-insensitive). */
export async function countUsersNamed(db: Pool, username: string, email: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*) AS n FROM auth.users WHERE lower(username) = lower($1) OR lower(email) = lower($2)",
    [username, email],
  );
  return rows[0]!.n;
}

export async function countTokensOf(db: Pool, userId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*) AS n FROM auth.personal_access_tokens WHERE user_id = $1",
    [userId],
  );
  return rows[0]!.n;
}

export { utcDate } from "@canopy/kit/testing";
