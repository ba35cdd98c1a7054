/**
 * Shared setup for the gateway's HTTP tests. Each test file starts a real auth service and one or
 * more real gateways in-process (real PostgreSQL, Redis and NATS JetStream, no mocks) and drives
 * them with `fetch`, as a GitLab client would. Every log line of those processes is kept in memory
 * (`Stack.logs`) so a test can check that no secret was ever written.
 *
 * Test files run in parallel against one database and one Redis: usernames are unique per test
 * (`unique`), and no test counts rows or rate-limit points it did not create itself.
 */
import { randomBytes } from "node:crypto";
import { connectRedis, createPool, type Pool, type RedisClient } from "@canopy/kit";
import {
  childLogger,
  recordingLogger,
  startTestService,
  unique,
  throwawayDatabase,
  waitFor,
  type RecordedLogs,
  type TestService,
} from "@canopy/kit/testing";
import { authServiceDefinition, type AuthConfig } from "@canopy/auth";
import { groupsServiceDefinition, type GroupsConfig } from "@canopy/groups";
import { projectsServiceDefinition, type ProjectsConfig } from "@canopy/projects";
import { ldapServiceDefinition, type LdapServiceConfig } from "@canopy/ldap";
import { hooksServiceDefinition, type HooksConfig } from "@canopy/hooks";
import { loadGatewayConfig, startGateway } from "../src";

export { unique, waitFor };

// Real PostgreSQL, NATS and argon2 hashing, with every test file running at once: 5 s is too tight.
jest.setTimeout(20_000);

export const EXTERNAL_URL = "https://canopy.example.com";
export const ROOT_PASSWORD = "root-password-for-gateway-tests";
export const PASSWORD = "s3cret-Passw0rd!";

export const newRootToken = () => `glpat-${randomBytes(24).toString("base64url")}`;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown;
}

export interface RequestOptions {
  /** Sent as PRIVATE-TOKEN. */
  token?: string;
  headers?: Record<string, string>;
  /** Sent as a JSON body. */
  json?: unknown;
  /** Sent as an application/x-www-form-urlencoded body. */
  form?: Record<string, string>;
  /** Sent as is, with `headers` deciding its Content-Type. */
  raw?: string | Buffer;
}

export class Gateway {
  constructor(
    readonly port: number,
    readonly stop: () => Promise<void>,
  ) {}

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers["PRIVATE-TOKEN"] = options.token;
    let body: string | Buffer | undefined = options.raw;
    if (options.json !== undefined) {
      headers["Content-Type"] ??= "application/json";
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers["Content-Type"] ??= "application/x-www-form-urlencoded";
      body = new URLSearchParams(options.form).toString();
    }
    const res = await fetch(this.base + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get = (path: string, options?: RequestOptions) => this.request("GET", path, options);
  post = (path: string, options?: RequestOptions) => this.request("POST", path, options);
  put = (path: string, options?: RequestOptions) => this.request("PUT", path, options);
  delete = (path: string, options?: RequestOptions) => this.request("DELETE", path, options);
}

export interface Stack {
  /** The auth service, running in this process. */
  authService: TestService<AuthConfig, unknown>;
  /** The groups service, running in this process. */
  groupsService: TestService<GroupsConfig, unknown>;
  /** The projects service, running in this process (the first replica when there are more). */
  projectsService: TestService<ProjectsConfig, unknown>;
  /** Every replica of the projects service; gateways spread their calls over them round-robin. */
  projectsReplicas: TestService<ProjectsConfig, unknown>[];
  /** The ldap service, when the stack was asked for it (`ldap`). */
  ldapService?: TestService<LdapServiceConfig, unknown>;
  /** The hooks service, when the stack was asked for it (`hooks`). */
  hooksService?: TestService<HooksConfig, unknown>;
  /** The first gateway; `gateways` holds all of them. */
  gw: Gateway;
  gateways: Gateway[];
  rootToken: string;
  /** A pool on the test database (search_path `auth`), for reading back and for what the API cannot do. */
  db: Pool;
  redis: RedisClient;
  /** Every line the stack's processes logged. */
  logs: RecordedLogs;
  authAddress: string;
  /** Starts one more gateway (against this stack's auth service unless `env` says otherwise). */
  addGateway(env?: Record<string, string>): Promise<Gateway>;
  stop(): Promise<void>;
}

/** Test gateways get budgets no test run reaches; the rate-limit tests start their own. */
const GENEROUS_LIMITS = {
  CANOPY_RATE_LIMIT_AUTHENTICATED: "1000000",
  CANOPY_RATE_LIMIT_UNAUTHENTICATED: "1000000",
  // Password grants spend from it too.
  CANOPY_RATE_LIMIT_SIGN_IN: "1000000",
  // Many tests write the database behind the API's back, which no answer cache can hear of: the
  // cache is on only where a test says so (answer-cache.test.ts, the permission matrix) and in e2e.
  CANOPY_ANSWER_CACHE_SECONDS: "0",
};

export async function startStack(
  options: {
    gateways?: Record<string, string>[];
    env?: Record<string, string>;
    /** Replicas of the projects service (default 1), sharing its consumers as a deployment's do. */
    projectsReplicas?: number;
    /** Also start the ldap service, with this environment on top of `env`. */
    ldap?: Record<string, string>;
    /** Also start the hooks service, with this environment on top of `env` (its own database, as `ldap`). */
    hooks?: Record<string, string>;
    /** A database and event stream of its own, as with `ldap` (for work that reads every user). */
    ownDatabase?: boolean;
  } = {},
): Promise<Stack> {
  // A stack with the ldap (or hooks) service gets a database and event stream of its own: their
  // durable consumers copy every group and membership, and on the run's shared stream they would
  // first replay every event the whole run wrote (seconds of lag on a busy machine).
  const own =
    (options.ldap || options.hooks || options.ownDatabase) && !options.env?.CANOPY_DATABASE_URL
      ? await throwawayDatabase("canopy_test_ldap_")
      : undefined;
  if (own) options = { ...options, env: { ...own.env, ...options.env } };
  const logs = recordingLogger("auth");
  const rootToken = newRootToken();
  const auth = await startTestService(authServiceDefinition, {
    env: {
      CANOPY_ROOT_PASSWORD: ROOT_PASSWORD,
      CANOPY_ROOT_TOKEN: rootToken,
      // The scheduled LDAP user check reads every user of the database: run on the run's shared one
      // it would block other files' users, whose identities are not in this stack's directory.
      // Tests of the check run it themselves (ldap-blocked.test.ts).
      CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS: "0",
      ...options.env,
    },
    log: logs.log,
  });
  const authAddress = auth.address;
  const groups = await startTestService(groupsServiceDefinition, {
    env: { ...options.env },
    log: childLogger(logs, "groups"),
  });
  const projectsReplicas: TestService<ProjectsConfig, unknown>[] = [];
  for (let i = 0; i < (options.projectsReplicas ?? 1); i++) {
    projectsReplicas.push(
      await startTestService(projectsServiceDefinition, {
        env: { ...options.env },
        log: childLogger(logs, "projects"),
      }),
    );
  }
  const projects = projectsReplicas[0]!;
  const ldap = options.ldap
    ? await startTestService(ldapServiceDefinition, {
        env: { ...options.env, ...options.ldap },
        log: childLogger(logs, "ldap"),
      })
    : undefined;
  const hooks = options.hooks
    ? await startTestService(hooksServiceDefinition, {
        env: { ...options.env, ...options.hooks },
        log: childLogger(logs, "hooks"),
      })
    : undefined;
  // One target naming every replica, as `CANOPY_REPLICAS=2 npm start` gives it (README).
  const projectsAddress =
    projectsReplicas.length === 1
      ? projects.address
      : `ipv4:${projectsReplicas.map((r) => r.address).join(",")}`;
  const db = createPool({ url: auth.config.CANOPY_DATABASE_URL, schema: "auth" });
  const gatewayLog = childLogger(logs, "gateway");
  const redis = await connectRedis(auth.config.CANOPY_REDIS_URL, gatewayLog);
  const gateways: Gateway[] = [];
  const addGateway = async (env: Record<string, string> = {}) => {
    const config = loadGatewayConfig({
      ...process.env,
      ...GENEROUS_LIMITS,
      CANOPY_PORT: "0",
      CANOPY_AUTH_ADDRESS: authAddress,
      CANOPY_GROUPS_ADDRESS: groups.address,
      CANOPY_PROJECTS_ADDRESS: projectsAddress,
      ...(ldap ? { CANOPY_LDAP_ADDRESS: ldap.address } : {}),
      ...(hooks ? { CANOPY_HOOKS_ADDRESS: hooks.address } : {}),
      CANOPY_EXTERNAL_URL: EXTERNAL_URL,
      ...options.env,
      ...env,
    });
    const started = await startGateway(config, gatewayLog);
    const gateway = new Gateway(started.port, started.stop);
    gateways.push(gateway);
    return gateway;
  };
  for (const env of options.gateways ?? [{}]) await addGateway(env);
  return {
    authService: auth,
    groupsService: groups,
    projectsService: projects,
    projectsReplicas,
    ldapService: ldap,
    hooksService: hooks,
    gw: gateways[0]!,
    gateways,
    rootToken,
    db,
    redis,
    logs,
    authAddress,
    addGateway,
    stop: async () => {
      for (const g of gateways) await g.stop();
      await redis.quit();
      await db.end();
      await ldap?.stop();
      await hooks?.stop();
      for (const replica of projectsReplicas) await replica.stop();
      await groups.stop();
      await auth.stop();
      await own?.drop();
    },
  };
}

/** GitLab's UserWithAdmin entity, as POST /users answers. */
export interface ApiUser {
  id: number;
  username: string;
  name: string;
  email: string;
  state: string;
  is_admin: boolean;
  [field: string]: unknown;
}

export interface ApiToken {
  id: number;
  user_id: number;
  name: string;
  scopes: string[];
  token: string;
  [field: string]: unknown;
}

/** Creates a user through the API as root; fails the test unless the API answers 201. */
export async function createUser(stack: Stack, attributes: Record<string, unknown> = {}): Promise<ApiUser> {
  const username = unique("user_");
  const res = await stack.gw.post("/api/v4/users", {
    token: stack.rootToken,
    json: {
      username,
      email: `${username}@example.com`,
      name: `User ${username}`,
      password: PASSWORD,
      ...attributes,
    },
  });
  if (res.status !== 201) throw new Error(`creating a user: ${res.status} ${res.text}`);
  return res.body as ApiUser;
}

/**
 * An administrator with a known password. Root's password is whatever the first service to start on
 * the shared test database was given, so tests that sign in as an admin use one of these instead.
 */
export async function createAdmin(stack: Stack): Promise<ApiUser> {
  return createUser(stack, { admin: true });
}

/** Gives a user a new personal access token (made by root); the answer carries the secret. */
export async function createToken(
  stack: Stack,
  userId: number,
  scopes = ["api"],
  extra: Record<string, unknown> = {},
): Promise<ApiToken> {
  const res = await stack.gw.post(`/api/v4/users/${userId}/personal_access_tokens`, {
    token: stack.rootToken,
    json: { name: unique("token-"), scopes, ...extra },
  });
  if (res.status !== 201) throw new Error(`creating a token: ${res.status} ${res.text}`);
  return res.body as ApiToken;
}

export interface SignedIn {
  user: ApiUser;
  token: ApiToken;
  /** The token's secret. */
  secret: string;
}

/** A new user (non-admin unless `attributes.admin`) with a token of `scopes`. */
export async function signedInUser(
  stack: Stack,
  scopes = ["api"],
  attributes: Record<string, unknown> = {},
): Promise<SignedIn> {
  const user = await createUser(stack, attributes);
  const token = await createToken(stack, user.id, scopes);
  return { user, token, secret: token.token };
}

/** The row of `auth.users` with this id, or undefined. */
export async function userRow(stack: Stack, id: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await stack.db.query("SELECT * FROM auth.users WHERE id = $1", [id]);
  return rows[0];
}

export async function countUsers(stack: Stack, where: string, params: unknown[]): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM auth.users WHERE ${where}`,
    params,
  );
  return rows[0]!.n;
}

/** GitLab's API headers on a JSON answer. */
export function expectJsonHeaders(res: Reply) {
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
}

/** Status, exact body, and `Content-Type: application/json` exactly. */
export function expectError(res: Reply, status: number, body: unknown) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body });
  expectJsonHeaders(res);
}

export const UNAUTHORIZED = { message: "401 Unauthorized" };
export const FORBIDDEN = { message: "403 Forbidden" };
export const EXPIRED = {
  error: "invalid_token",
  error_description: "Token is expired. You can either do re-authorization or token refresh.",
};
export const REVOKED = {
  error: "invalid_token",
  error_description: "Token was revoked. You have to re-authorize from the user.",
};
export const wwwAuthenticate = (description: string) =>
  `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`;
export const insufficientScope = (scope: string) => ({
  error: "insufficient_scope",
  error_description: "The request requires higher privileges than provided by the access token.",
  scope,
});

/** ISO 8601 with milliseconds, UTC. */
export const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
