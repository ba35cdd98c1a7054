// The whole stack as `npm start` runs it (deploy/start.mjs), on free ports and a throwaway database,
// for benchmarks. A trimmed copy of e2e/test/support/stack.ts: bench does not depend on e2e.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { connect } from "nats";
import { Client } from "pg";
import { REPO_ROOT, SERVICES } from "./manifest";
const ADMIN_DATABASE_URL =
  process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Six services one after the other: on a machine busy with other work, a minute is not always enough. */
const READY_TIMEOUT_MS = 120_000;
/** Output kept for an error message; the rest is read and dropped (request logs add up under load). */
const TAIL_BYTES = 64 * 1024;
/** BENCH_KEEP=1: leave the stack's database behind when it stops, to inspect it (EXPLAIN ANALYZE). */
const KEEP_DATABASE = process.env.BENCH_KEEP === "1";

export interface BenchStack {
  url: string;
  /** The stack's own database (each service has its schema in it). */
  databaseUrl: string;
  /** Its JetStream stream of events (CANOPY_EVENT_STREAM): the database's name, upper-cased. */
  eventStream: string;
  rootToken: string;
  healthPorts: Record<Service, number>;
  pids: Partial<Record<Service, number>>;
  launcherPid: number;
  /** The last lines the launcher printed. */
  tail(): string;
  /** Ctrl-C, then drop the database and delete the event stream. */
  stop(): Promise<number | null>;
}

/** A service's name in services.json. The bench stack runs one replica of each. */
export type Service = string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function admin(sql: string) {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Deletes a stack's streams: its events and its settings bucket (nothing to do if never created). */
async function deleteStreams(names: string[]) {
  const nc = await connect({ servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(",") });
  try {
    const jsm = await nc.jetstreamManager();
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

/** The services the launcher started, by name, from /proc (Linux). */
function childPids(launcherPid: number): Partial<Record<Service, number>> {
  const out: Partial<Record<Service, number>> = {};
  try {
    const children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, "utf8");
    for (const pid of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const service = SERVICES.find((s) => cmdline.includes(s.entry));
      if (service) out[service.name] = pid;
    }
  } catch {
    // not Linux, or a child already gone: callers fall back to /metrics
  }
  return out;
}

/** `npm start`'s command after `node` (package.json), so the bench's launcher runs with its flags. */
function launcherArgs(): string[] {
  const start: string = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).scripts.start;
  const [node, ...args] = start.split(/\s+/);
  if (node !== "node" || !args.includes("deploy/start.mjs"))
    throw new Error(`npm start is not node …: ${start}`);
  return args;
}

function exited(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
    proc.on("close", (code) => resolve(code));
  });
}

/** Attempts at starting a stack whose ports another process took first. */
const PORT_ATTEMPTS = 3;

/**
 * Starts the stack; again, on fresh ports and a fresh database, when a port it chose was taken
 * between choosing and listening (other stacks on the machine choose free ports too).
 */
export async function startStack(extraEnv: Record<string, string> = {}): Promise<BenchStack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(extraEnv);
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !/EADDRINUSE/.test((err as Error).message)) throw err;
      process.stdout.write(`a port of the stack was taken meanwhile (EADDRINUSE): starting it again\n`);
    }
  }
}

async function startStackOnce(extraEnv: Record<string, string>): Promise<BenchStack> {
  const databaseName = `canopy_bench_${randomBytes(6).toString("hex")}`;
  // NATS is shared with every other stack on the machine: this one's events get a stream of their
  // own, and its application settings a bucket of their own (bench:hooks changes them).
  const eventStream = databaseName.toUpperCase();
  const settingsBucket = databaseName;
  await admin(`CREATE DATABASE ${databaseName}`);
  const databaseUrl = new URL(ADMIN_DATABASE_URL);
  databaseUrl.pathname = `/${databaseName}`;
  const port = await freePort();
  const healthPorts: Record<Service, number> = {};
  const ports: Record<string, string> = {};
  for (const service of SERVICES) {
    healthPorts[service.name] = await freePort();
    ports[service.healthPortVariable] = String(healthPorts[service.name]);
    if (service.grpc) ports[service.grpc.portVariable] = String(await freePort());
  }
  const url = `http://127.0.0.1:${port}`;
  const rootToken = `glpat-${randomBytes(24).toString("base64url")}`;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^CANOPY_(?!REDIS_URL$|NATS_URL$|LOG_LEVEL$)/.test(k)),
  );
  const proc = spawn(process.execPath, launcherArgs(), {
    cwd: REPO_ROOT,
    env: {
      ...inherited,
      NO_COLOR: "1",
      CANOPY_SKIP_BUILD: "1",
      CANOPY_DATABASE_URL: databaseUrl.toString(),
      CANOPY_EVENT_STREAM: eventStream,
      CANOPY_SETTINGS_BUCKET: settingsBucket,
      CANOPY_PORT: String(port),
      CANOPY_EXTERNAL_URL: url,
      ...ports,
      CANOPY_ROOT_PASSWORD: `pw-${randomBytes(12).toString("base64url")}`,
      CANOPY_ROOT_TOKEN: rootToken,
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });

  let output = "";
  let ready = false;
  let onReady: () => void = () => {};
  const readyNow = new Promise<void>((resolve) => (onReady = resolve));
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-TAIL_BYTES);
    if (!ready && output.includes("Canopy is ready at ")) {
      ready = true;
      onReady();
    }
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exit = exited(proc);

  let stopped: Promise<number | null> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGINT");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
      const code = await exit;
      clearTimeout(timer);
      if (KEEP_DATABASE)
        process.stdout.write(`BENCH_KEEP: kept ${databaseUrl} (DROP DATABASE ${databaseName} when done)\n`);
      else await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      // A KV bucket is the stream KV_<bucket>.
      await deleteStreams([eventStream, `KV_${settingsBucket}`]).catch(() => undefined);
      return code;
    })());

  // Ctrl-C (or `npm run bench` stopping a bench that ran too long), from the start on: the stack stops
  // and its database is dropped. Not with BENCH_HOLD, whose Ctrl-C means "go on with the load".
  const onInterrupt = () => {
    process.stdout.write("interrupted: stopping the stack\n");
    void stop().finally(() => process.exit(130));
  };
  if (process.env.BENCH_HOLD !== "1") process.once("SIGINT", onInterrupt);

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      readyNow,
      exit.then((code) => {
        throw new Error(`the launcher exited with code ${code} before it was ready`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the stack was not ready within ${READY_TIMEOUT_MS / 1000} s`)),
          READY_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (err) {
    process.off("SIGINT", onInterrupt); // a failed start may be tried again: that stack has its own
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  } finally {
    clearTimeout(timer);
  }

  return {
    url,
    databaseUrl: databaseUrl.toString(),
    eventStream,
    rootToken,
    healthPorts,
    pids: childPids(proc.pid!),
    launcherPid: proc.pid!,
    tail: () => output,
    stop,
  };
}

/**
 * Runs a benchmark against a fresh stack: starts it, runs `body`, shows the stack's last output if
 * `body` fails, always stops it, and exits non-zero on failure.
 */
export function runBench(
  name: string,
  env: Record<string, string>,
  body: (stack: BenchStack) => Promise<void>,
) {
  const run = async () => {
    const stack = await startStack(env);
    try {
      await body(stack);
    } catch (err) {
      process.stderr.write(`--- last output of the stack ---\n${stack.tail()}\n`);
      throw err;
    } finally {
      const code = await stack.stop();
      if (code !== 0) process.stdout.write(`note: the launcher exited with code ${code}\n`);
    }
  };
  run().catch((err) => {
    process.stderr.write(`${name} failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  });
}
