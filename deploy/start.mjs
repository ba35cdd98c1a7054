// `npm start`: the whole Canopy stack on one machine, as plain processes. Installs and builds when
// needed, makes sure PostgreSQL, Redis and NATS answer, then starts the services of services.json in
// order, each only after the previous one reports ready, so the gateway never comes up before auth
// can answer. CANOPY_REPLICAS=n starts n of every service (a service's replicas start together, as
// in a cluster); the gateway reaches every replica, and users reach every gateway through one port.
// A process that dies stops the whole stack, unless CANOPY_RESTART_EXITED=1: then it is started
// again with the same ports and environment, as a cluster restarts a pod (the fault suite kills
// replicas this way).
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { commandOf, readManifest, ROOT } from "./lib/manifest.cjs";
import { planStack, replicaCount } from "./lib/plan.cjs";
import { freePort, reservePorts } from "./lib/ports.cjs";
import { startRoundRobinProxy } from "./lib/round-robin-proxy.cjs";

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

const COLOURS = [36, 35, 33, 32, 34, 31]; // cyan, magenta, yellow, green, blue, red
const useColour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
let tagWidth = "[canopy]".length;

/** `[auth]   `, padded so the log columns line up, coloured only for a terminal. */
function tag(name, colour) {
  const text = `[${name}]`.padEnd(tagWidth);
  return useColour ? `\x1b[${colour}m${text}\x1b[0m` : text;
}

// Tagged on each call: the tags widen once the launcher knows how many replicas it runs.
const log = (text) => console.log(text.replace(/^/gm, `${tag("canopy", 1)} `)); // bold

/** Running children in start order: { name (its log tag), service (its workspace), proc, ready, exit, exited }. */
const children = [];
/** Round-robin proxies in front of replicated HTTP services. */
const proxies = [];
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
  // Ports the caller pinned (the e2e stack pins every replica's) are bound only later: none may be
  // handed out again for a port the caller left to the launcher.
  reservePorts(
    Object.entries(env)
      .filter(([name, value]) => /^CANOPY_\w*PORT$/.test(name) && value)
      .flatMap(([, value]) => value.split(",").map(Number).filter(Number.isInteger)),
  );
  const plan = await planStack({
    services: readManifest().services,
    env,
    replicas: replicaCount(env.CANOPY_REPLICAS),
    freePort,
  });
  Object.assign(env, plan.env);
  tagWidth = Math.max(tagWidth, ...plan.services.flatMap((s) => s.replicas.map((r) => r.tag.length + 2)));

  for (const [index, service] of plan.services.entries()) {
    const colour = COLOURS[index % COLOURS.length];
    const started = service.replicas.map((replica) =>
      startChild({ ...service, name: replica.tag }, colour, { ...env, ...replica.env }),
    );
    await Promise.all(started.map((child, i) => waitReady(child, service.replicas[i].healthPort)));
    if (!started.every((child) => child.ready)) return; // one exited or we are stopping: shutdown() has it
    log(`${service.name} is ready${started.length > 1 ? ` (${started.length} replicas)` : ""}`);
  }
  for (const { name, port, upstreams } of plan.proxies) {
    proxies.push(await startRoundRobinProxy({ port, upstreams }));
    log(`port ${port} takes turns over the ${upstreams.length} ${name} replicas (${upstreams.join(", ")})`);
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
  // Nobody but this machine reaches a service's gRPC or health port unless the caller says so.
  setDefault("CANOPY_GRPC_HOST", "127.0.0.1");
  setDefault("CANOPY_HEALTH_HOST", "127.0.0.1");
  // Ports and addresses of the services come from services.json through planStack().
  return env;
}

function startChild(service, colour, env) {
  if (!existsSync(path.join(ROOT, service.entry))) {
    throw new Error(
      `${service.entry} does not exist: run npm run build (or start without CANOPY_SKIP_BUILD=1)`,
    );
  }
  const [, ...args] = commandOf(service);
  log(`starting ${service.name}: node ${args.join(" ")}`);
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group: a terminal's Ctrl-C goes to us, and we stop children in order
  });
  const prefix = tag(service.name, colour);
  prefixLines(proc.stdout, process.stdout, prefix);
  prefixLines(proc.stderr, process.stderr, prefix);

  const child = { name: service.name, service: service.workspace, proc, ready: false, exit: undefined };
  child.env = env;
  child.restart = () => startChild(service, colour, env);
  // "close", not "exit": by then every line the child wrote has been printed.
  child.exited = new Promise((resolve) => {
    const done = (exit) => resolve((child.exit ??= exit));
    proc.on("close", (code, signal) => done({ code, signal }));
    proc.on("error", (error) => done({ error }));
  });
  child.exited.then((exit) => {
    if (stopping) return;
    const when = child.ready ? "unexpectedly" : "before it was ready";
    if (child.ready && process.env.CANOPY_RESTART_EXITED === "1")
      return restart(child, `${describe(exit)} ${when}`);
    log(`${child.name} ${describe(exit)} ${when}; stopping the others`);
    shutdown(1);
  });
  children.push(child);
  return child;
}

/** CANOPY_RESTART_EXITED=1: starts a replica that died again in its place, and waits until it is ready. */
async function restart(dead, why) {
  log(`${dead.name} ${why}; starting it again`);
  children.splice(children.indexOf(dead), 1);
  const child = dead.restart();
  await waitReady(child, Number(child.env.CANOPY_HEALTH_PORT)).catch((err) => log(err.message));
  if (child.ready) log(`${child.name} is ready again (pid ${child.proc.pid})`);
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

/**
 * Stops children newest first (SIGTERM, then SIGKILL after 10 s each) and exits. Replicas of one
 * service stop together; the proxies stop accepting first and let open requests finish.
 */
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const proxy of proxies) proxy.stopAccepting();
  const services = [...new Set(children.map((child) => child.service))].reverse();
  for (const service of services) {
    await Promise.all(children.filter((child) => child.service === service).map(stop));
  }
  for (const proxy of proxies) proxy.destroy();
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
