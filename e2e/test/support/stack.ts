// The whole Canopy stack, started exactly as a user starts it: `node deploy/start.mjs` (the `npm start`
// launcher) with its own throwaway database and free ports. Every line any process prints is kept, so
// tests can read the logs; `stop()` sends Ctrl-C (SIGINT) and reports how the launcher exited.
// CANOPY_REPLICAS in the environment runs that many of every service, as `npm start` does.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { Client } from "pg";
import { grpcTarget, replicasFromEnv, REPO_ROOT, SERVICES } from "./manifest";
import { Captured, freePort, waitForStatus, type Exit } from "./process";

export type { Captured, Exit } from "./process";
export { REPO_ROOT } from "./manifest";
// Read on each use: the fault suite points it at a PostgreSQL of its own before it starts a stack.
const adminDatabaseUrl = () =>
  process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/** Pids of the launcher's children (every replica) by service name, read from /proc. */
function childPids(launcherPid: number): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, "utf8").trim().split(/\s+/);
  } catch {
    return out;
  }
  for (const pid of children.filter(Boolean).map(Number)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const service = SERVICES.find((s) => cmdline.includes(s.entry));
      if (service) (out[service.name] ??= []).push(pid);
    } catch {
      // gone already
    }
  }
  return out;
}

export interface Stack {
  /** http://127.0.0.1:<port>: the gateway the launcher started. */
  url: string;
  rootToken: string;
  rootPassword: string;
  databaseName: string;
  /** JetStream stream of the stack's events (CANOPY_EVENT_STREAM): the database's name, upper-cased. */
  eventStream: string;
  /** How many of every service run (CANOPY_REPLICAS). */
  replicas: number;
  /** Health side ports the launcher was told to use, one per replica, by service name. */
  healthPorts: Record<string, number[]>;
  /** The launcher, whose output carries every service's lines, prefixed `[auth]`, `[gateway]`. */
  launcher: Captured;
  /** Pids of the services the launcher runs now (every replica). */
  pids: Record<string, number[]>;
  /** Processes started besides the launcher (extra gateways); their lines count as logs too. */
  extras: Captured[];
  /**
   * Where every gateway records each /api/v4 answer checked against the OpenAPI document, one JSON
   * line per answer (gateway/src/openapi/check-responses.ts); the openapi suite reads it.
   */
  openApiCheckFile: string;
  /** Every line of every process so far. */
  allLines(): string[];
  /** Starts another gateway process against the same services, Redis and NATS. */
  startGateway(): Promise<ExtraGateway>;
  /** Ctrl-C: SIGINT to the launcher, then waits for it to exit. */
  stop(): Promise<Exit>;
  /** Stops whatever still runs (forcefully if need be) and drops the database. Safe to call twice. */
  dispose(): Promise<void>;
}

export interface ExtraGateway {
  url: string;
  healthPort: number;
  process: Captured;
}

/** Starts the stack and resolves once the launcher printed "Canopy is ready at". */
export async function startStack(options: { env?: Record<string, string> } = {}): Promise<Stack> {
  const databaseName = `canopy_e2e_${randomBytes(6).toString("hex")}`;
  const eventStream = databaseName.toUpperCase();
  const admin = new Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await admin.end();
  }
  const databaseUrl = new URL(adminDatabaseUrl());
  databaseUrl.pathname = `/${databaseName}`;

  const replicas = replicasFromEnv(options.env?.CANOPY_REPLICAS);
  const freePorts = (count: number) => Promise.all(Array.from({ length: count }, freePort));
  const port = await freePort();
  // Every replica's ports pinned (a port variable may list one per replica), so the stack knows them.
  const healthPorts: Record<string, number[]> = {};
  const ports: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  for (const service of SERVICES) {
    healthPorts[service.name] = await freePorts(replicas);
    ports[service.healthPortVariable] = healthPorts[service.name]!.join(",");
    if (service.grpc) {
      const grpcPorts = await freePorts(replicas);
      ports[service.grpc.portVariable] = grpcPorts.join(",");
      addresses[service.grpc.addressVariable] = grpcTarget(grpcPorts);
    }
  }
  const url = `http://127.0.0.1:${port}`;
  const openApiCheckFile = join(tmpdir(), `${databaseName}-openapi.jsonl`);
  const rootToken = `glpat-${randomBytes(24).toString("base64url")}`;
  const rootPassword = `pw-${randomBytes(12).toString("base64url")}`;

  // The caller's environment (Redis and NATS URLs, OTEL_*, ...) minus what ties this stack together.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^CANOPY_(?!REDIS_URL$|NATS_URL$|LOG_LEVEL$|REPLICAS$)/.test(k),
    ),
  );
  const env: Record<string, string | undefined> = {
    ...inherited,
    NO_COLOR: "1",
    CANOPY_SKIP_BUILD: "1",
    CANOPY_DATABASE_URL: databaseUrl.toString(),
    // NATS is shared by every stack on the machine: this one's settings snapshot has its own bucket,
    // and its events their own stream (durable consumers must not read another database's events).
    CANOPY_SETTINGS_BUCKET: databaseName,
    CANOPY_EVENT_STREAM: eventStream,
    CANOPY_PORT: String(port),
    CANOPY_EXTERNAL_URL: url,
    ...ports,
    CANOPY_ROOT_PASSWORD: rootPassword,
    CANOPY_ROOT_TOKEN: rootToken,
    // The refresh-token grace window (30 s by default) shortened so the OAuth suite can wait it out:
    // reuse of a rotated refresh token inside it gets the same new pair, after it revokes the family.
    CANOPY_OAUTH_REFRESH_GRACE_SECONDS: "5",
    // Every suite signs in from 127.0.0.1 (pages and password grants): more than 10 a minute.
    CANOPY_RATE_LIMIT_SIGN_IN: "1000",
    // Every answer any client gets is checked against the OpenAPI document (the openapi suite).
    CANOPY_OPENAPI_CHECK_FILE: openApiCheckFile,
    ...options.env,
  };

  const launcher = new Captured(
    "launcher",
    spawn(process.execPath, ["deploy/start.mjs"], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const extras: Captured[] = [];
  let pids: Record<string, number[]> = {};
  let disposed = false;

  const stack: Stack = {
    url,
    rootToken,
    rootPassword,
    databaseName,
    eventStream,
    replicas,
    healthPorts,
    openApiCheckFile,
    launcher,
    get pids() {
      // Read afresh while the launcher runs: a replica it started again (CANOPY_RESTART_EXITED) has a new pid.
      if (launcher.running) pids = childPids(launcher.proc.pid!);
      return pids;
    },
    extras,
    allLines: () => [...launcher.lines, ...extras.flatMap((e) => e.lines)],

    async startGateway() {
      // As the launcher runs it, node arguments included.
      const gateway = SERVICES.find((s) => s.name === "gateway")!;
      const [extraPort, healthPort] = await Promise.all([freePort(), freePort()]);
      const proc = new Captured(
        `gateway #${extras.length + 2}`,
        spawn(process.execPath, [...(gateway.nodeArgs ?? []), gateway.entry], {
          cwd: REPO_ROOT,
          env: {
            ...env,
            CANOPY_PORT: String(extraPort),
            CANOPY_HEALTH_PORT: String(healthPort),
            ...addresses,
          },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      extras.push(proc);
      await proc.waitForLine(/"msg":"gateway ready"/, READY_TIMEOUT_MS);
      await waitForStatus(`http://127.0.0.1:${healthPort}/-/readiness`, 200, 10_000);
      return { url: `http://127.0.0.1:${extraPort}`, healthPort, process: proc };
    },

    stop: () => launcher.stop("SIGINT"),

    async dispose() {
      if (disposed) return;
      disposed = true;
      await Promise.all(extras.map((e) => e.stop("SIGTERM", 10_000)));
      if (launcher.running) {
        const exit = await launcher.stop("SIGINT", STOP_TIMEOUT_MS);
        if (exit.signal === "SIGKILL") {
          // The launcher was killed: its children run in their own process group and would linger.
          for (const pid of Object.values(pids).flat()) {
            try {
              process.kill(pid, "SIGKILL");
            } catch {
              // already gone
            }
          }
        }
      }
      const client = new Client({ connectionString: adminDatabaseUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      } finally {
        await client.end();
      }
      await deleteStreams([`KV_${databaseName}`, eventStream]).catch(() => undefined);
      rmSync(openApiCheckFile, { force: true });
    },
  };

  try {
    await launcher.waitForLine(/Canopy is ready at /, READY_TIMEOUT_MS);
    pids = childPids(launcher.proc.pid!);
  } catch (err) {
    await stack.dispose();
    throw err;
  }
  return stack;
}

/** The lines a service's replicas wrote through the launcher (`[auth]  {...}`, `[auth#2] {...}`), without the prefix. */
export function serviceLines(lines: string[], service: string): string[] {
  const prefix = new RegExp(`^\\[${service}(?:#\\d+)?\\]\\s+`);
  return lines.filter((l) => prefix.test(l)).map((l) => l.replace(prefix, ""));
}

/** Removes a stack's JetStream streams: its settings KV bucket (the stream KV_<bucket>) and its events. */
async function deleteStreams(names: string[]) {
  const nc = await connect({ servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(",") });
  try {
    const jsm = await nc.jetstreamManager();
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
