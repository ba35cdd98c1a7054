#!/usr/bin/env node
// `npm run bench:auth`: what authenticating costs. Starts the stack as `npm start` does, seeds a few
// hundred users and a personal access token, then loads the gateway in one run with
//   GET /api/v4/user  (PRIVATE-TOKEN: cached authentication, rate limit, gRPC to auth, PostgreSQL)
//   GET /-/health     (the same HTTP stack and middleware, no authentication)
// and, for half as long, GET /api/v4/version (authentication and rate limit, no call to auth), which
// tells the cost of authenticating from the cost of fetching the user,
// and prints req/s, p50 and p99 latency of each, their ratio, and each process's resident memory idle
// and after the load. A report, not a test: it exits 0 whatever the figures.
//
// BENCH_SECONDS (10), BENCH_CONNECTIONS (20), BENCH_WARMUP_SECONDS (2), BENCH_USERS (200),
// BENCH_QUIET_SECONDS (0: after the load, sample memory this long with no traffic),
// BENCH_IDLE_SETTLE_SECONDS (20: how long the started stack rests; its lowest memory then is "idle").
// Seeding dominates the run time: every user created costs an argon2id hash in auth.
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { machineBusySeconds, sampleProcess, scrapeResidentBytes, type ProcessSample } from "./proc";
import { retryUnavailable } from "./report";
import { loadFigure, num, rssFigure, verdictOf, writeResult } from "./results";
import { runBench, type BenchStack, type Service } from "./stack";

const intFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
};
const SECONDS = intFromEnv("BENCH_SECONDS", 10);
const CONNECTIONS = intFromEnv("BENCH_CONNECTIONS", 20);
const WARMUP_SECONDS = intFromEnv("BENCH_WARMUP_SECONDS", 2);
const USERS = intFromEnv("BENCH_USERS", 200);
/** After the load, how long to sample memory with no traffic (V8 gives memory back after ~10-20 s). */
const QUIET_SECONDS = intFromEnv("BENCH_QUIET_SECONDS", 0);
const IDLE_SETTLE_SECONDS = intFromEnv("BENCH_IDLE_SETTLE_SECONDS", 20);
const PAIRED_ROUNDS = intFromEnv("BENCH_PAIRED_ROUNDS", 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
/** Parallel requests while seeding; each user creation hashes a password with argon2id. */
const SEED_CONCURRENCY = 2;

const TARGET_RATIO = 0.85;
const TARGET_IDLE_RSS_MB = 120;
const SERVICES: Service[] = ["auth", "gateway"];

const mb = (bytes: number | undefined) =>
  bytes === undefined ? "n/a" : `${(bytes / 1048576).toFixed(1)} MB`;
const say = (text: string) => process.stdout.write(`${text}\n`);

async function api(stack: BenchStack, path: string, token: string, body?: unknown) {
  const res = await fetch(`${stack.url}/api/v4${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "PRIVATE-TOKEN": token,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** USERS users through the API, as root; a token for the last one. */
async function seed(stack: BenchStack): Promise<{ token: string; username: string }> {
  const run = randomBytes(3).toString("hex");
  let next = 0;
  let last: Record<string, unknown> = {};
  const worker = async () => {
    while (next < USERS) {
      const i = next++;
      last = await retryUnavailable((attempt) => {
        const username = `bench-${run}-${i}${attempt > 1 ? `-${attempt}` : ""}`;
        return api(stack, "/users", stack.rootToken, {
          username,
          email: `${username}@example.com`,
          name: `Bench User ${i}`,
          password: randomBytes(12).toString("base64url"),
          skip_confirmation: true,
        });
      });
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  const user = USERS > 0 ? last : await api(stack, "/user", stack.rootToken);
  const created = await retryUnavailable(() =>
    api(stack, `/users/${user.id}/personal_access_tokens`, stack.rootToken, {
      name: "bench",
      scopes: ["read_user"],
    }),
  );
  return { token: String(created.token), username: String(user.username) };
}

function load(url: string, seconds: number, headers: Record<string, string> = {}) {
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
}

/** CPU and memory of every process involved, at one moment. */
interface Snapshot {
  at: number;
  processes: Partial<Record<Service | "launcher", ProcessSample>>;
  /** RSS from /metrics when /proc has nothing (not Linux). */
  scraped: Partial<Record<Service, number>>;
  benchCpuSeconds: number;
  machineBusySeconds?: number;
}

async function snapshot(stack: BenchStack): Promise<Snapshot> {
  const processes: Snapshot["processes"] = { launcher: sampleProcess(stack.launcherPid) };
  const scraped: Snapshot["scraped"] = {};
  for (const s of SERVICES) {
    const pid = stack.pids[s];
    processes[s] = pid ? sampleProcess(pid) : undefined;
    const healthPort = stack.healthPorts[s];
    if (!processes[s] && healthPort) scraped[s] = await scrapeResidentBytes(healthPort);
  }
  const own = process.cpuUsage();
  return {
    at: Date.now(),
    processes,
    scraped,
    benchCpuSeconds: (own.user + own.system) / 1e6,
    machineBusySeconds: machineBusySeconds(),
  };
}

const rssOf = (snap: Snapshot, s: Service) => snap.processes[s]?.rss ?? snap.scraped[s];

/** CPU used between two snapshots, per process, in % of one core. */
function cpuBetween(a: Snapshot, b: Snapshot) {
  const wall = (b.at - a.at) / 1000;
  const pct = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : ((y - x) / wall) * 100;
  const out: Record<string, number | undefined> = {};
  let ours = 0;
  for (const name of [...SERVICES, "launcher"] as const) {
    out[name] = pct(a.processes[name]?.cpuSeconds, b.processes[name]?.cpuSeconds);
    ours += out[name] ?? 0;
  }
  out.bench = pct(a.benchCpuSeconds, b.benchCpuSeconds);
  const machine = pct(a.machineBusySeconds, b.machineBusySeconds);
  out.other = machine === undefined ? undefined : Math.max(0, machine - ours - (out.bench ?? 0));
  return out;
}

const pct = (v: number | undefined) => (v === undefined ? "n/a" : `${v.toFixed(0)}%`);

function table(rows: string[][]) {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const [i, row] of rows.entries()) {
    say(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
    if (i === 0) say(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready at ${stack.url} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  // Idle means settled: right after start-up V8 still holds the garbage of loading every module, and
  // gives it back only when its idle-time memory reducer runs. The lowest reading of the window.
  const idleRss: Partial<Record<Service, number>> = {};
  for (let i = 0; i < IDLE_SETTLE_SECONDS; i++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const snap = await snapshot(stack);
    for (const s of SERVICES) {
      const rss = rssOf(snap, s);
      if (rss !== undefined) idleRss[s] = Math.min(idleRss[s] ?? Infinity, rss);
    }
  }

  const seeding = Date.now();
  const { token, username } = await seed(stack);
  const me = await api(stack, "/user", token);
  if (me.username !== username) throw new Error(`the token answered ${String(me.username)}`);
  say(`seeded ${USERS} users and a token in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
  const seeded = await snapshot(stack);

  const userUrl = `${stack.url}/api/v4/user`;
  const healthUrl = `${stack.url}/-/health`;
  const auth = { "PRIVATE-TOKEN": token };
  if (WARMUP_SECONDS > 0) {
    await load(userUrl, WARMUP_SECONDS, auth);
    await load(healthUrl, WARMUP_SECONDS);
  }
  const beforeUser = await snapshot(stack);
  const user = await load(userUrl, SECONDS, auth);
  const afterUser = await snapshot(stack);
  const version = await load(`${stack.url}/api/v4/version`, Math.max(1, Math.ceil(SECONDS / 2)), auth);
  const beforeHealth = await snapshot(stack);
  const health = await load(healthUrl, SECONDS);
  const afterHealth = await snapshot(stack);

  say("");
  const userCpu = cpuBetween(beforeUser, afterUser);
  const versionCpu = cpuBetween(afterUser, beforeHealth);
  const healthCpu = cpuBetween(beforeHealth, afterHealth);
  // CPU per request is what contention on a shared machine changes least.
  const perRequest = (cpu: Record<string, number | undefined>, r: autocannon.Result) =>
    `${((((cpu.gateway ?? 0) + (cpu.auth ?? 0)) / 100 / r.requests.average) * 1000).toFixed(2)} ms`;
  const row = (name: string, r: autocannon.Result, cpu: Record<string, number | undefined>) => [
    name,
    r.requests.average.toFixed(0),
    `${r.latency.p50} ms`,
    `${r.latency.p99} ms`,
    String(r.non2xx + r.errors),
    perRequest(cpu, r),
  ];
  table([
    ["endpoint", "req/s", "p50", "p99", "failed", "CPU/req (gateway+auth)"],
    row("GET /api/v4/user (PRIVATE-TOKEN)", user, userCpu),
    row("GET /api/v4/version (PRIVATE-TOKEN)", version, versionCpu),
    row("GET /-/health", health, healthCpu),
  ]);
  const single = user.requests.average / health.requests.average;
  // This machine's speed drifts (a shared VM): pairs of short back-to-back runs, whose median
  // ratio a drift between two long runs cannot tilt.
  const pairs: number[] = [];
  for (let i = 0; i < PAIRED_ROUNDS; i++) {
    const u = await load(userUrl, 2, auth);
    const h = await load(healthUrl, 2);
    pairs.push(u.requests.average / h.requests.average);
  }
  const ratio = median(pairs);
  const ratioVerdict = ratio >= TARGET_RATIO ? "ok" : "MISSED";
  say(
    `ratio user/health: ${single.toFixed(2)} in the runs above; median of ${PAIRED_ROUNDS} paired 2 s runs:`,
  );
  say(
    `  ${ratio.toFixed(2)} (${pairs.map((r) => r.toFixed(2)).join(", ")}) (target >= ${TARGET_RATIO}) ${ratioVerdict}`,
  );

  // Idle again: the lowest RSS while nothing happens, once V8's memory reducer has had its chance.
  const quiet: Partial<Record<Service, number>> = {};
  for (let i = 0; i < QUIET_SECONDS; i++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const snap = await snapshot(stack);
    for (const s of SERVICES) {
      const rss = rssOf(snap, s);
      if (rss !== undefined) quiet[s] = Math.min(quiet[s] ?? Infinity, rss);
    }
  }

  say("");
  const peak = (s: Service) => afterHealth.processes[s]?.peakRss;
  const verdict = (rss: number | undefined) =>
    rss === undefined ? "n/a" : rss <= TARGET_IDLE_RSS_MB * 1048576 ? "ok" : "MISSED";
  const idleOk = (s: Service) =>
    QUIET_SECONDS > 0 ? `start ${verdict(idleRss[s])}, quiet ${verdict(quiet[s])}` : verdict(idleRss[s]);
  const quietColumn = QUIET_SECONDS > 0;
  table([
    [
      "RSS",
      "idle",
      "after seed",
      "after load",
      ...(quietColumn ? [`${QUIET_SECONDS} s quiet`] : []),
      "peak",
      `idle <= ${TARGET_IDLE_RSS_MB} MB`,
    ],
    ...SERVICES.map((s) => [
      s,
      mb(idleRss[s]),
      mb(rssOf(seeded, s)),
      mb(rssOf(afterHealth, s)),
      ...(quietColumn ? [mb(quiet[s])] : []),
      mb(peak(s)),
      idleOk(s),
    ]),
  ]);

  say("");
  const cpuRows: [string, string][] = [
    ["auth", "auth"],
    ["gateway", "gateway"],
    ["launcher (log relay)", "launcher"],
    ["bench (autocannon)", "bench"],
    ["everything else (pg, redis, nats, ...)", "other"],
  ];
  table([
    ["CPU, % of one core", "/api/v4/user", "/api/v4/version", "/-/health"],
    ...cpuRows.map(([label, key]) => [label, pct(userCpu[key]), pct(versionCpu[key]), pct(healthCpu[key])]),
  ]);
  say(`\n(RSS and CPU from /proc; ${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  writeResult({
    bench: "auth",
    settings: { seconds: SECONDS, connections: CONNECTIONS, users: USERS, pairedRounds: PAIRED_ROUNDS },
    figures: [
      {
        case: "GET /api/v4/user ÷ GET /-/health (median of paired 2 s runs)",
        figure: `${num(ratio, 2)} (${pairs.map((r) => num(r, 2)).join(", ")})`,
        value: Number(ratio.toFixed(2)),
        target: `≥ ${TARGET_RATIO}`,
        verdict: verdictOf(ratio >= TARGET_RATIO),
      },
      { case: "GET /api/v4/user (PRIVATE-TOKEN)", figure: loadFigure(user) },
      { case: "GET /api/v4/version (PRIVATE-TOKEN)", figure: loadFigure(version) },
      { case: "GET /-/health", figure: loadFigure(health) },
      ...SERVICES.map((s) => rssFigure(s, idleRss[s], TARGET_IDLE_RSS_MB)),
    ],
  });
}

const started = Date.now();
say(`bench:auth: ${SECONDS} s per endpoint, ${CONNECTIONS} connections, ${USERS} users`);
// GitLab's default limits (2000 requests per minute per user) would turn the load into 429s.
runBench(
  "bench:auth",
  {
    CANOPY_RATE_LIMIT_AUTHENTICATED: "1000000000",
    CANOPY_RATE_LIMIT_UNAUTHENTICATED: "1000000000",
  },
  (stack) => main(stack, started),
);
