/**
 * Shared setup for the hooks service's contract tests. Each file gets a database of its own (with its
 * own event stream and settings bucket: a file turns allow_local_requests_from_web_hooks_and_services
 * on without touching any other file's settings), and starts real auth, groups, projects and hooks
 * services and a gateway on it, in-process. Everything is driven over HTTP as a GitLab client does;
 * deliveries go to a receiver on 127.0.0.1 that records what it got and answers as told.
 */
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createPool, type Pool } from "@canopy/kit";
import {
  childLogger,
  recordingLogger,
  startTestService,
  throwawayDatabase,
  unique,
  waitFor,
  type TestService,
  type ThrowawayDatabase,
} from "@canopy/kit/testing";
import { authServiceDefinition } from "@canopy/auth";
import { groupsServiceDefinition } from "@canopy/groups";
import { projectsServiceDefinition } from "@canopy/projects";
import { loadGatewayConfig, startGateway } from "../../../gateway/src";
import { Gateway, newRootToken, PASSWORD, ROOT_PASSWORD } from "../../../gateway/test/support";
import type { HooksConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { hooksServiceDefinition } from "../src/service";

export { unique, waitFor, Gateway };

// Five processes and a database of their own per file.
jest.setTimeout(60_000);

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

/** A webhook receiver on 127.0.0.1: records every request; `answer` decides each reply. */
export class Receiver {
  readonly received: Received[] = [];
  answer: (r: Received) => { status: number; body?: string; headers?: Record<string, string> } = () => ({
    status: 200,
    body: "ok",
  });
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body);
        } catch {
          json = {};
        }
        const r = { method: req.method!, url: req.url!, headers: req.headers, body, json, at: Date.now() };
        receiver.received.push(r);
        const a = receiver.answer(r);
        res.writeHead(a.status, a.headers ?? {});
        res.end(a.body ?? "");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What reached `path` (its requests, oldest first). */
  at(path: string) {
    return this.received.filter((r) => r.url === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    await waitFor(`${count} requests at ${path}`, () => this.at(path).length >= count, timeoutMs);
    return this.at(path);
  }

  stop() {
    return new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

export interface HooksStack {
  gw: Gateway;
  rootToken: string;
  hooks: TestService<HooksConfig, Deps>;
  hooksReplicas: TestService<HooksConfig, Deps>[];
  /** A pool on the file's database, schema `hooks`. */
  db: Pool;
  database: ThrowawayDatabase;
  receiver: Receiver;
  addHooksReplica(env?: Record<string, string>): Promise<TestService<HooksConfig, Deps>>;
  /** The environment a hooks replica of this stack runs with (for one in a process of its own). */
  replicaEnv(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

const EXTERNAL_URL = "https://canopy.example.com";

/** Fast retries for tests: 100 ms apart, doubling. */
export const FAST_RETRIES = { CANOPY_HOOK_RETRY_BASE_SECONDS: "0.1", CANOPY_HOOK_POLL_MS: "200" };

export async function startHooksStack(
  options: {
    env?: Record<string, string>;
    hooksEnv?: Record<string, string>;
    /** The projects service's own (CANOPY_PLAN=free removes a project at once instead of marking it). */
    projectsEnv?: Record<string, string>;
    allowLocal?: boolean;
  } = {},
): Promise<HooksStack> {
  const database = await throwawayDatabase("canopy_hooks_test_");
  const logs = recordingLogger("auth");
  const env = { ...database.env, ...options.env };
  const rootToken = newRootToken();
  const auth = await startTestService(authServiceDefinition, {
    env: { CANOPY_ROOT_PASSWORD: ROOT_PASSWORD, CANOPY_ROOT_TOKEN: rootToken, ...env },
    log: logs.log,
  });
  const groups = await startTestService(groupsServiceDefinition, { env, log: childLogger(logs, "groups") });
  const projects = await startTestService(projectsServiceDefinition, {
    env: { ...env, ...options.projectsEnv },
    log: childLogger(logs, "projects"),
  });
  const hooksReplicas: TestService<HooksConfig, Deps>[] = [];
  const replicaEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...FAST_RETRIES,
    CANOPY_EXTERNAL_URL: EXTERNAL_URL,
    ...env,
    ...options.hooksEnv,
    ...extra,
  });
  const addHooksReplica = async (extra: Record<string, string> = {}) => {
    const replica = await startTestService(hooksServiceDefinition, {
      env: replicaEnv(extra),
      log: childLogger(logs, "hooks"),
    });
    hooksReplicas.push(replica);
    return replica;
  };
  const hooks = await addHooksReplica();
  const config = loadGatewayConfig({
    ...process.env,
    CANOPY_RATE_LIMIT_AUTHENTICATED: "1000000",
    CANOPY_RATE_LIMIT_UNAUTHENTICATED: "1000000",
    CANOPY_RATE_LIMIT_SIGN_IN: "1000000",
    CANOPY_ANSWER_CACHE_SECONDS: "0",
    CANOPY_REDIS_KEY_PREFIX: `${database.name}:`,
    CANOPY_PORT: "0",
    CANOPY_AUTH_ADDRESS: auth.address,
    CANOPY_GROUPS_ADDRESS: groups.address,
    CANOPY_PROJECTS_ADDRESS: projects.address,
    CANOPY_HOOKS_ADDRESS: hooks.address,
    CANOPY_EXTERNAL_URL: EXTERNAL_URL,
    ...env,
  });
  const started = await startGateway(config, childLogger(logs, "gateway"));
  const gw = new Gateway(started.port, started.stop);
  const db = createPool({ url: database.url, schema: "hooks" });
  const receiver = await Receiver.start();
  if (options.allowLocal ?? true) {
    const res = await gw.put("/api/v4/application/settings", {
      token: rootToken,
      json: { allow_local_requests_from_web_hooks_and_services: true },
    });
    if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`);
    await waitFor(
      "the local-requests setting",
      () => hooks.deps.settings.current().allowLocalRequestsFromWebHooksAndServices,
    );
  }
  return {
    gw,
    rootToken,
    hooks,
    hooksReplicas,
    db,
    database,
    receiver,
    addHooksReplica,
    replicaEnv,
    stop: async () => {
      await receiver.stop();
      await gw.stop();
      for (const r of hooksReplicas.splice(0)) await r.stop();
      await projects.stop();
      await groups.stop();
      await auth.stop();
      await db.end();
      await database.drop();
    },
  };
}

export interface User {
  id: number;
  username: string;
  token: string;
}

/** A user with an `api` token (an administrator when `admin`). */
export async function newUser(stack: HooksStack, admin = false): Promise<User> {
  const username = unique("hookuser_");
  const res = await stack.gw.post("/api/v4/users", {
    token: stack.rootToken,
    json: { username, email: `${username}@example.com`, name: `User ${username}`, password: PASSWORD, admin },
  });
  if (res.status !== 201) throw new Error(`user: ${res.status} ${res.text}`);
  const id = (res.body as { id: number }).id;
  const tok = await stack.gw.post(`/api/v4/users/${id}/personal_access_tokens`, {
    token: stack.rootToken,
    json: { name: unique("t-"), scopes: ["api"] },
  });
  if (tok.status !== 201) throw new Error(`token: ${tok.status} ${tok.text}`);
  return { id, username, token: (tok.body as { token: string }).token };
}

export interface Group {
  id: number;
  path: string;
  full_path: string;
  name: string;
}

export async function newGroup(
  stack: HooksStack,
  owner: User,
  attributes: Record<string, unknown> = {},
): Promise<Group> {
  const path = unique("hg-").toLowerCase();
  const res = await stack.gw.post("/api/v4/groups", {
    token: owner.token,
    json: { name: path, path, visibility: "private", ...attributes },
  });
  if (res.status !== 201) throw new Error(`group: ${res.status} ${res.text}`);
  return res.body as Group;
}

export async function addMember(stack: HooksStack, group: Group, user: User, level: number, as?: User) {
  const res = await stack.gw.post(`/api/v4/groups/${group.id}/members`, {
    token: as?.token ?? stack.rootToken,
    json: { user_id: user.id, access_level: level },
  });
  if (res.status !== 201) throw new Error(`member: ${res.status} ${res.text}`);
}

/** Creates a hook through the API; fails unless 201. */
export async function newHook(
  stack: HooksStack,
  group: Group,
  as: User | string,
  attributes: Record<string, unknown> = {},
) {
  const res = await stack.gw.post(`/api/v4/groups/${group.id}/hooks`, {
    token: typeof as === "string" ? as : as.token,
    json: { url: `${stack.receiver.url}/${unique("h")}`, ...attributes },
  });
  if (res.status !== 201) throw new Error(`hook: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown> & { id: number; url: string; signing_secret: string };
}

/** The hooks service has applied every event so far (its copies know the group). */
export async function hooksKnowGroup(stack: HooksStack, groupId: number) {
  await waitFor(`group ${groupId} in the hooks copies`, async () => {
    const { rows } = await stack.db.query("SELECT 1 FROM namespaces WHERE id = $1", [groupId]);
    return rows.length > 0;
  });
}
