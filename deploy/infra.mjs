// Makes sure PostgreSQL, Redis and NATS JetStream answer before anything else runs. A server that is
// down on this machine but installed gets started with the machine's own command; anything else ends
// in ONE error that lists every missing piece, so a newcomer fixes them all in one go.
//
// Used by `npm start` (deploy/start.mjs) and `npm test` (deploy/test.sh); `node deploy/infra.mjs`
// runs the check alone.
import { execFile } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createClient } from "@redis/client";
import { connect } from "nats";

/** The same local defaults the services use (services/kit/src/config.ts). */
export const DEFAULT_URLS = {
  CANOPY_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/canopy",
  CANOPY_REDIS_URL: "redis://127.0.0.1:6379",
  CANOPY_NATS_URL: "nats://127.0.0.1:4222",
};

/** A URL from the environment; empty counts as unset, as in the services' config loader. */
export function urlFromEnv(name) {
  return process.env[name] || DEFAULT_URLS[name];
}

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const PROBE_TIMEOUT_MS = 3_000;
const START_WAIT_MS = 20_000;

const DEPENDENCIES = [
  {
    name: "PostgreSQL",
    env: "CANOPY_DATABASE_URL",
    binaries: ["pg_ctlcluster"],
    // The cluster's port comes from its own postgresql.conf, so the URL's port is not passed.
    start: () => "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    install: "apt-get install postgresql",
    probe: probePostgres,
  },
  {
    name: "Redis",
    env: "CANOPY_REDIS_URL",
    binaries: ["redis-server"],
    start: (port) =>
      `redis-server --daemonize yes --bind 127.0.0.1 -::1 --port ${port || 6379} --save "" ` +
      `--appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log`,
    install: "apt-get install redis-server",
    probe: probeRedis,
  },
  {
    name: "NATS",
    env: "CANOPY_NATS_URL",
    binaries: ["start-stop-daemon", "/usr/sbin/nats-server"],
    start: (port) =>
      `start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- ` +
      `-a 127.0.0.1 -p ${port || 4222} -js -sd /var/lib/nats-server -l /var/log/nats-server.log`,
    install: "apt-get install nats-server",
    startHint: "with JetStream on (nats-server -js)",
    probe: probeNats,
  },
];

/** Thrown when some infrastructure does not answer; the message lists every failure. */
export class InfraError extends Error {
  name = "InfraError";
  constructor(failures) {
    super(
      `Canopy's infrastructure is not ready:\n${failures.join("\n")}\n` +
        `Install and start what is missing, or point the variable at a server that runs.`,
    );
    this.failures = failures;
  }
}

/** Probes every dependency (in parallel), starts local ones that are down, throws InfraError. */
export async function ensureInfra({ log = console.log } = {}) {
  const failures = (await Promise.all(DEPENDENCIES.map((dep) => ensureOne(dep, log)))).filter(Boolean);
  if (failures.length > 0) throw new InfraError(failures);
}

/** Creates the database named in a PostgreSQL URL if it does not exist yet. Returns true if it did. */
export async function ensureDatabase(url) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) return false; // no database in the URL: the server uses the user's default one
  const client = new pg.Client({
    connectionString: adminUrl(url),
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
  });
  await client.connect();
  try {
    // Look first: a user without CREATEDB may still own an existing database.
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (existing.rowCount > 0) return false;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    return true;
  } catch (err) {
    // Another launcher or test run won the race: 42P04 (duplicate_database) if it committed first,
    // 23505 on pg_database's unique index if both were inserting at the same moment.
    if (err.code === "42P04" || err.constraint === "pg_database_datname_index") return false;
    throw err;
  } finally {
    await client.end();
  }
}

/** Returns undefined when the dependency answers (now or after starting it), else one failure line. */
async function ensureOne(dep, log) {
  const raw = urlFromEnv(dep.env);
  const shown = maskUrl(raw);
  const install = `install it (Debian: ${dep.install}) and start it${dep.startHint ? ` ${dep.startHint}` : ""}`;
  const fail = (why, hint = install) =>
    `  - ${dep.name} at ${shown} (${dep.env}): ${why}\n      fix: ${hint}`;

  let url;
  try {
    url = new URL(raw);
  } catch {
    return fail("not a valid URL", `set ${dep.env} to a URL like ${DEFAULT_URLS[dep.env]}`);
  }

  let problem = await probe(dep, raw);
  if (!problem) {
    log(`${dep.name} answers at ${shown}`);
    return undefined;
  }

  if (!LOCAL_HOSTS.has(url.hostname)) {
    return fail(
      problem,
      `it is not on this machine, so it was not started here: make sure it runs there (Debian: ${dep.install})`,
    );
  }
  const missing = dep.binaries.filter((binary) => !installed(binary));
  if (missing.length > 0) return fail(`${problem}; not installed here (no ${missing.join(", ")})`);

  const command = dep.start(url.port);
  log(`${dep.name} does not answer at ${shown} (${problem}); starting it: ${command}`);
  const started = await sh(command);
  if (started.output) log(`${dep.name}: ${started.output}`);

  // Daemons return before they accept connections, so poll for a while; a failed command gets one look.
  const deadline = Date.now() + (started.ok ? START_WAIT_MS : 0);
  do {
    await sleep(500);
    problem = await probe(dep, raw);
  } while (problem && Date.now() < deadline);
  if (!problem) {
    log(`${dep.name} started and answers at ${shown}`);
    return undefined;
  }
  return fail(
    started.ok
      ? `${problem}; still not answering ${START_WAIT_MS / 1000} s after starting it`
      : `${problem}; the start command failed: ${started.output || "no output"}`,
  );
}

/** Runs a probe and turns a thrown error into a short reason with no secrets in it. */
async function probe(dep, url) {
  try {
    await dep.probe(url);
    return undefined;
  } catch (err) {
    return hideSecrets(err.message || String(err.code || err), url);
  }
}

async function probePostgres(url) {
  // The `postgres` database always exists; the app database may not have been created yet.
  const client = new pg.Client({
    connectionString: adminUrl(url),
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
  });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => {});
  }
}

async function probeRedis(url) {
  // Without reconnectStrategy: false the client would retry forever instead of failing.
  const client = createClient({
    url,
    socket: { connectTimeout: PROBE_TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on("error", () => {}); // reported through connect()/ping() rejecting
  try {
    await client.connect();
    await client.ping();
  } finally {
    client.destroy();
  }
}

async function probeNats(url) {
  const nc = await connect({ ...natsOptions(url), timeout: PROBE_TIMEOUT_MS, reconnect: false }).catch(
    (err) => {
      throw new Error(err.code === "CONNECTION_REFUSED" ? "connection refused" : err.message);
    },
  );
  try {
    // A server without -js accepts connections but has no JetStream API; this call detects that.
    await (await nc.jetstreamManager()).getAccountInfo();
  } catch (err) {
    throw new Error(err.code === "503" ? "JetStream is not enabled (nats-server needs -js)" : err.message);
  } finally {
    await nc.close();
  }
}

/** nats.js ignores credentials in a server URL, so pass them as options: user:pass, or a lone token. */
function natsOptions(raw) {
  const url = new URL(raw);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const auth = pass ? { user, pass } : user ? { token: user } : {};
  return { servers: `${url.hostname}:${url.port || 4222}`, ...auth };
}

/** The same server and credentials, but the `postgres` maintenance database. */
function adminUrl(raw) {
  const url = new URL(raw);
  url.pathname = "/postgres";
  return url.toString();
}

/** A URL safe to print: the password, or a NATS token (a lone username), becomes ***. */
export function maskUrl(raw) {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    else if (url.username && url.protocol === "nats:") url.username = "***";
    return url.toString();
  } catch {
    return "(not a valid URL)";
  }
}

function hideSecrets(text, raw) {
  try {
    const url = new URL(raw);
    const secrets = [url.password, url.protocol === "nats:" ? url.username : ""].filter(Boolean);
    return secrets.reduce((out, secret) => out.split(decodeURIComponent(secret)).join("***"), text);
  } catch {
    return text;
  }
}

function installed(binary) {
  const candidates = binary.includes("/")
    ? [binary]
    : (process.env.PATH || "").split(path.delimiter).map((dir) => path.join(dir, binary));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Runs a start command through sh (it uses $(...)); never throws, reports output instead. */
function sh(command) {
  return new Promise((resolve) => {
    execFile("sh", ["-c", command], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ ok: !err, output: `${stdout}${stderr}`.trim().replace(/\s*\n\s*/g, "; ") });
    });
  });
}

// `node deploy/infra.mjs`: the check alone, for `npm test` and for people.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await ensureInfra({ log: (line) => console.log(`[infra] ${line}`) });
  } catch (err) {
    console.error(err instanceof InfraError ? err.message : err);
    process.exitCode = 1;
  }
}
