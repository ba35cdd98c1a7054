// `npm start`: the whole Canopy stack on one machine, as plain processes. Installs and builds when
// needed, makes sure PostgreSQL, Redis and NATS answer, then starts the services one by one, each
// only after the previous one reports ready, so the gateway never comes up before auth can answer.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// In start order. Adding a service is one line here.
const SERVICES = [
  { name: "auth", entry: "services/auth/dist/main.js" },
  { name: "gateway", entry: "gateway/dist/main.js" },
];

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

const COLOURS = [36, 35, 33, 32, 34, 31]; // cyan, magenta, yellow, green, blue, red
const useColour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const TAG_WIDTH = Math.max(...["canopy", ...SERVICES.map((s) => s.name)].map((n) => n.length)) + 2;

/** `[auth]   `, padded so the log columns line up, coloured only for a terminal. */
function tag(name, colour) {
  const text = `[${name}]`.padEnd(TAG_WIDTH);
  return useColour ? `\x1b[${colour}m${text}\x1b[0m` : text;
}

const LAUNCHER_TAG = tag("canopy", 1); // bold
const log = (text) => console.log(text.replace(/^/gm, `${LAUNCHER_TAG} `));

/** Running children in start order: { name, proc, ready, exit, exited }. */
const children = [];
let stopping = false;

try {
  await main();
} catch (err) {
  log(err.message);
  await shutdown(1);
}

async function main() {
  prepare();
  // Imported only now: infra.mjs needs pg, redis and nats, which prepare() may just have installed.
  const { ensureInfra, ensureDatabase, urlFromEnv } = await import("./infra.mjs");
  await ensureInfra({ log });
  if (await ensureDatabase(urlFromEnv("CANOPY_DATABASE_URL"))) log("created the database");

  // From here on, Ctrl-C reaches only this process (children run in their own process group), so
  // the services stop in reverse order: the gateway stops taking requests before auth goes away.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (!stopping) log(`${signal}: stopping`);
      shutdown(0);
    });
  }

  const env = sharedEnv();
  for (const [index, service] of SERVICES.entries()) {
    const port = await healthPort(service.name);
    const child = startChild(service, COLOURS[index % COLOURS.length], {
      ...env,
      CANOPY_HEALTH_PORT: `${port}`,
    });
    await waitReady(child, port);
    if (!child.ready) return; // it exited or we are stopping: shutdown() has it in hand
    log(`${service.name} is ready`);
  }
  printWelcome(env);
}

/** `npm install` (pinned by the lock file) when node_modules is missing, then an incremental build unless CANOPY_SKIP_BUILD=1. */
function prepare() {
  if (!existsSync(path.join(ROOT, "node_modules"))) {
    // Not `npm ci`: see deploy/test.sh on why the lock file cannot satisfy it on every platform.
    run("npm", ["install", "--no-audit", "--no-fund"]);
  }
  if (process.env.CANOPY_SKIP_BUILD !== "1") run("npm", ["run", "build"]);
}

function run(command, args) {
  log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (result.error) throw new Error(`${command} ${args.join(" ")} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
}

/** The parent's environment plus the defaults that tie the services together. */
function sharedEnv() {
  const env = { ...process.env };
  // Empty counts as unset, as in the services' own config loader.
  const setDefault = (name, value) => (env[name] ||= value);
  setDefault("CANOPY_PORT", "8080");
  setDefault("CANOPY_EXTERNAL_URL", `http://localhost:${env.CANOPY_PORT}`);
  setDefault("CANOPY_AUTH_GRPC_PORT", "50051");
  setDefault("CANOPY_AUTH_ADDRESS", `127.0.0.1:${env.CANOPY_AUTH_GRPC_PORT}`);
  return env;
}

/** CANOPY_<NAME>_HEALTH_PORT if set, else a port that was free a moment ago. */
async function healthPort(name) {
  const variable = `CANOPY_${name.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_HEALTH_PORT`;
  const fixed = process.env[variable];
  if (!fixed) return freePort();
  const port = Number(fixed);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`${variable}=${fixed} is not a port`);
  }
  return port;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function startChild(service, colour, env) {
  if (!existsSync(path.join(ROOT, service.entry))) {
    throw new Error(
      `${service.entry} does not exist: run npm run build (or start without CANOPY_SKIP_BUILD=1)`,
    );
  }
  log(`starting ${service.name}: node ${service.entry}`);
  const proc = spawn(process.execPath, [service.entry], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group: a terminal's Ctrl-C goes to us, and we stop children in order
  });
  const prefix = tag(service.name, colour);
  prefixLines(proc.stdout, process.stdout, prefix);
  prefixLines(proc.stderr, process.stderr, prefix);

  const child = { name: service.name, proc, ready: false, exit: undefined };
  // "close", not "exit": by then every line the child wrote has been printed.
  child.exited = new Promise((resolve) => {
    const done = (exit) => resolve((child.exit ??= exit));
    proc.on("close", (code, signal) => done({ code, signal }));
    proc.on("error", (error) => done({ error }));
  });
  child.exited.then((exit) => {
    if (stopping) return;
    const when = child.ready ? "unexpectedly" : "before it was ready";
    log(`${child.name} ${describe(exit)} ${when}; stopping the others`);
    shutdown(1);
  });
  children.push(child);
  return child;
}

function prefixLines(from, to, prefix) {
  readline.createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
    to.write(`${prefix} ${line}\n`);
  });
}

/** Polls the child's readiness endpoint until it answers 200, the child exits, or time runs out. */
async function waitReady(child, port) {
  const url = `http://127.0.0.1:${port}/-/readiness`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!stopping && !child.exit) {
    if (await answers200(url)) {
      child.ready = true;
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`${child.name} did not answer 200 on ${url} within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await sleep(250);
  }
}

function answers200(url) {
  return new Promise((resolve) => {
    // agent: false, so no kept-alive socket holds the child's health server open at shutdown.
    const request = http.get(url, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(false));
  });
}

function printWelcome(env) {
  const url = env.CANOPY_EXTERNAL_URL;
  const password = process.env.CANOPY_ROOT_PASSWORD
    ? "(from CANOPY_ROOT_PASSWORD)"
    : "the generated password the auth service logged once on its first start";
  const lines = [
    "",
    `Canopy is ready at ${url}`,
    `  Sign in at:  ${url}/users/sign_in`,
    `  as:          root`,
    `  password:    ${password}`,
    `  OAuth apps:  ${url}/profile/applications`,
  ];
  if (process.env.CANOPY_ROOT_TOKEN) {
    lines.push(`  API:         curl -H "PRIVATE-TOKEN: $CANOPY_ROOT_TOKEN" ${url}/api/v4/user`);
  }
  lines.push("  Stop with Ctrl-C.", "");
  console.log(lines.join("\n"));
}

/** Stops children newest first (SIGTERM, then SIGKILL after 10 s each) and exits. */
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const child of [...children].reverse()) await stop(child);
  process.exit(code);
}

async function stop(child) {
  if (child.exit) return;
  child.proc.kill("SIGTERM");
  const timedOut = await Promise.race([child.exited.then(() => false), sleep(STOP_TIMEOUT_MS, true)]);
  if (timedOut) {
    log(`${child.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
    child.proc.kill("SIGKILL");
    await child.exited;
  }
}

function describe(exit) {
  if (exit.error) return `could not start (${exit.error.message})`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
