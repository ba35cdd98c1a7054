#!/usr/bin/env node
// `npm run bench:oauth`: what the OAuth provider's hot paths cost. Starts the stack as `npm start`
// does, registers a confidential application (admin API) and a user, then loads the gateway in one run:
//   GET /-/health                (the HTTP stack alone: the yardstick)
//   GET /oauth/token/info        (one live access token: gRPC to auth, token lookup)
//   POST /oauth/token refresh    (client auth, row lock, a new pair, the old one revoked and announced)
//   GET /api/v4/user             (the same access token on the API, where the gateway caches it; for
//                                 comparison, half as long)
// and prints req/s, p50, p99 and each one's ratio to health. A report, not a test: it exits 0
// whatever the figures (1 only when the run itself breaks).
//
// Rotation means a refresh token works once, so every refresh request takes a fresh one: BENCH_FAMILIES
// token families are issued with the password grant, their refresh tokens wait in a queue, and each
// answer puts the new refresh token at the back. No token is sent twice; the run checks that.
//
// BENCH_SECONDS (10), BENCH_CONNECTIONS (20), BENCH_WARMUP_SECONDS (2), BENCH_FAMILIES (100).
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { machineBusySeconds, sampleProcess } from "./proc";
import { intFromEnv, loadCells, retryUnavailable, say, seconds, table } from "./report";
import { loadFigure, num, verdictOf, writeResult } from "./results";
import { runBench, type BenchStack } from "./stack";

const SECONDS = intFromEnv("BENCH_SECONDS", 10);
const CONNECTIONS = intFromEnv("BENCH_CONNECTIONS", 20);
const WARMUP_SECONDS = intFromEnv("BENCH_WARMUP_SECONDS", 2);
const FAMILIES = Math.max(intFromEnv("BENCH_FAMILIES", 100), CONNECTIONS * 2);
/** Parallel password grants while seeding; each one verifies an argon2id hash in auth. */
const SEED_CONCURRENCY = 2;

const TARGET_INFO_RATIO = 0.5;
const TARGET_REFRESH_RPS = 300;
const UNLIMITED = "1000000000";

interface App {
  clientId: string;
  secret: string;
}

async function send(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const adminPost = (stack: BenchStack, path: string, body: unknown) =>
  send(`${stack.url}/api/v4${path}`, {
    method: "POST",
    headers: { "PRIVATE-TOKEN": stack.rootToken, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

const basicAuth = (app: App) =>
  `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.secret)}`).toString("base64")}`;

const FORM = "application/x-www-form-urlencoded";

/** A user, an instance-wide confidential application, and `count` password-grant token pairs. */
async function seed(stack: BenchStack, count: number) {
  const base = `bench-oauth-${randomBytes(3).toString("hex")}`;
  const password = randomBytes(12).toString("base64url");
  const username = await retryUnavailable(async (attempt) => {
    const name = `${base}${attempt > 1 ? `-${attempt}` : ""}`;
    await adminPost(stack, "/users", {
      username: name,
      email: `${name}@example.com`,
      name: "Bench OAuth",
      password,
      skip_confirmation: true,
    });
    return name;
  });
  const created = await retryUnavailable(() =>
    adminPost(stack, "/applications", {
      name: "bench:oauth",
      redirect_uri: "http://127.0.0.1/callback",
      scopes: "api",
    }),
  );
  const app: App = { clientId: String(created.application_id), secret: String(created.secret) };
  const pairs: { access_token: string; refresh_token: string }[] = [];
  const grant = () =>
    send(`${stack.url}/oauth/token`, {
      method: "POST",
      headers: { Authorization: basicAuth(app), "Content-Type": FORM },
      body: new URLSearchParams({ grant_type: "password", username, password, scope: "api" }).toString(),
    });
  const worker = async () => {
    while (pairs.length < count) pairs.push((await retryUnavailable(grant)) as (typeof pairs)[number]);
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return { app, pairs: pairs.slice(0, count) };
}

/** Refresh tokens waiting for use, oldest first, and what became of the ones sent. */
class RefreshQueue {
  private readonly waiting: string[];
  private readonly sent = new Set<string>();
  private readonly issued = new Set<string>();
  sentTwice = 0;
  reissued = 0;
  ran = 0;

  constructor(tokens: string[]) {
    this.waiting = [...tokens];
  }

  /** The next unused refresh token; a dummy (which fails, and is counted as failed) if none is left. */
  take(): string {
    const token = this.waiting.shift();
    if (!token) {
      this.ran++;
      return "exhausted";
    }
    if (this.sent.has(token)) this.sentTwice++;
    this.sent.add(token);
    return token;
  }

  /** A 200's new refresh token goes to the back of the queue. */
  answered(status: number, body: string) {
    if (status !== 200) return;
    const token = String((JSON.parse(body) as { refresh_token?: unknown }).refresh_token ?? "");
    if (!token) return;
    if (this.issued.has(token) || this.sent.has(token)) this.reissued++;
    this.issued.add(token);
    this.waiting.push(token);
  }

  get size() {
    return this.waiting.length;
  }
}

const CPU_COLUMNS = ["gateway", "auth", "launcher", "bench", "other"] as const;

/** CPU seconds so far: each service, the launcher (log relay), this process, and the whole machine. */
function cpuNow(stack: BenchStack) {
  const own = process.cpuUsage();
  return {
    at: Date.now(),
    gateway: sampleProcess(stack.pids.gateway ?? 0)?.cpuSeconds,
    auth: sampleProcess(stack.pids.auth ?? 0)?.cpuSeconds,
    launcher: sampleProcess(stack.launcherPid)?.cpuSeconds,
    bench: (own.user + own.system) / 1e6,
    machine: machineBusySeconds(),
  };
}

/** Runs `run` and answers its result with the CPU each process used meanwhile, in % of one core. */
async function measured(stack: BenchStack, run: () => Promise<autocannon.Result>) {
  const a = cpuNow(stack);
  const result = await run();
  const b = cpuNow(stack);
  const wall = (b.at - a.at) / 1000;
  const pct = (x?: number, y?: number) => (x === undefined || y === undefined ? NaN : ((y - x) / wall) * 100);
  const cpu: Record<(typeof CPU_COLUMNS)[number], number> = {
    gateway: pct(a.gateway, b.gateway),
    auth: pct(a.auth, b.auth),
    launcher: pct(a.launcher, b.launcher),
    bench: pct(a.bench, b.bench),
    other: NaN,
  };
  const ours = cpu.gateway + cpu.auth + cpu.launcher + cpu.bench;
  cpu.other = Math.max(0, pct(a.machine, b.machine) - ours);
  return { result, cpu };
}

function load(opts: autocannon.Options) {
  return autocannon({ connections: CONNECTIONS, ...opts });
}

function refreshLoad(stack: BenchStack, app: App, queue: RefreshQueue, duration: number) {
  return load({
    url: stack.url,
    duration,
    headers: { Authorization: basicAuth(app), "Content-Type": FORM },
    requests: [
      {
        method: "POST",
        path: "/oauth/token",
        setupRequest: (req) => ({
          ...req,
          body: `grant_type=refresh_token&refresh_token=${queue.take()}`,
        }),
        onResponse: (status, body) => queue.answered(status, body),
      },
    ],
  });
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready at ${stack.url} (${seconds(started)})`);
  const seeding = Date.now();
  const { app, pairs } = await seed(stack, FAMILIES + 1);
  const access = pairs.pop()!.access_token;
  const queue = new RefreshQueue(pairs.map((p) => p.refresh_token));
  say(`issued ${pairs.length + 1} token pairs (password grant) in ${seconds(seeding)}`);

  const healthUrl = `${stack.url}/-/health`;
  const infoUrl = `${stack.url}/oauth/token/info`;
  const bearer = { Authorization: `Bearer ${access}` };
  const info = await send(infoUrl, { headers: bearer });
  if ((info.application as { uid?: unknown }).uid !== app.clientId) throw new Error("token/info: wrong app");
  if (WARMUP_SECONDS > 0) {
    await load({ url: healthUrl, duration: WARMUP_SECONDS });
    await load({ url: infoUrl, duration: WARMUP_SECONDS, headers: bearer });
    await refreshLoad(stack, app, queue, WARMUP_SECONDS);
  }

  const runs = {
    health: await measured(stack, () => load({ url: healthUrl, duration: SECONDS })),
    info: await measured(stack, () => load({ url: infoUrl, duration: SECONDS, headers: bearer })),
    refresh: await measured(stack, () => refreshLoad(stack, app, queue, SECONDS)),
    // For comparison: the same token authenticating an API call, which the gateway caches.
    user: await measured(stack, () =>
      load({ url: `${stack.url}/api/v4/user`, duration: Math.ceil(SECONDS / 2), headers: bearer }),
    ),
  };
  const [health, tokenInfo, refresh] = [runs.health.result, runs.info.result, runs.refresh.result];

  // The chain still holds: a token from the back of the queue refreshes once more.
  const probe = queue.take();
  await send(`${stack.url}/oauth/token`, {
    method: "POST",
    headers: { Authorization: basicAuth(app), "Content-Type": FORM },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: probe }).toString(),
  });

  say("");
  const ratio = (r: autocannon.Result) => (r.requests.average / health.requests.average).toFixed(2);
  table([
    ["endpoint", "req/s", "p50", "p99", "failed", "ratio to health"],
    ["GET /-/health", ...loadCells(health), "1.00"],
    ["GET /oauth/token/info (Bearer)", ...loadCells(tokenInfo), ratio(tokenInfo)],
    ["POST /oauth/token (refresh_token)", ...loadCells(refresh), ratio(refresh)],
    ["GET /api/v4/user (same Bearer token)", ...loadCells(runs.user.result), ratio(runs.user.result)],
  ]);
  say("");
  const infoRatio = tokenInfo.requests.average / health.requests.average;
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  say(
    `token/info / health: ${infoRatio.toFixed(2)} (target >= ${TARGET_INFO_RATIO}) ${verdict(infoRatio >= TARGET_INFO_RATIO)}`,
  );
  say(
    `refresh grants/s: ${refresh.requests.average.toFixed(0)} (target >= ${TARGET_REFRESH_RPS}) ${verdict(refresh.requests.average >= TARGET_REFRESH_RPS)}`,
  );
  say(
    `refresh tokens: each sent once (${queue.sentTwice} sent twice), every answer a new one ` +
      `(${queue.reissued} repeated), queue ran dry ${queue.ran} times, ${queue.size} left`,
  );
  say("");
  const pctCell = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(0)}%`);
  table([
    ["CPU, % of one core", "/-/health", "/oauth/token/info", "refresh grant", "/api/v4/user"],
    ...CPU_COLUMNS.map((k) => [
      k === "other" ? "other (pg, redis, nats, ...)" : k,
      ...[runs.health, runs.info, runs.refresh, runs.user].map((r) => pctCell(r.cpu[k])),
    ]),
  ]);
  say(`\n(${seconds(started)} in all)`);
  const refreshFailed = refresh.non2xx + refresh.errors;
  writeResult({
    bench: "oauth",
    settings: { seconds: SECONDS, connections: CONNECTIONS, families: FAMILIES },
    figures: [
      { case: "GET /-/health", figure: loadFigure(health) },
      {
        case: "GET /oauth/token/info (Bearer) ÷ health",
        figure: `${num(infoRatio, 2)} (${loadFigure(tokenInfo)})`,
        value: Number(infoRatio.toFixed(2)),
        target: `≥ ${TARGET_INFO_RATIO}`,
        verdict: verdictOf(infoRatio >= TARGET_INFO_RATIO && tokenInfo.non2xx + tokenInfo.errors === 0),
      },
      {
        case: "POST /oauth/token (refresh_token grant)",
        figure: loadFigure(refresh),
        value: Math.round(refresh.requests.average),
        unit: "req/s",
        target: `≥ ${TARGET_REFRESH_RPS} req/s`,
        verdict: verdictOf(refresh.requests.average >= TARGET_REFRESH_RPS && refreshFailed === 0),
      },
      {
        case: "refresh tokens sent twice / answers repeating a token",
        figure: `${queue.sentTwice} / ${queue.reissued}`,
        target: "0 / 0",
        verdict: verdictOf(queue.sentTwice === 0 && queue.reissued === 0),
      },
      { case: "GET /api/v4/user (same Bearer token)", figure: loadFigure(runs.user.result) },
    ],
  });
}

const started = Date.now();
say(`bench:oauth: ${SECONDS} s per endpoint, ${CONNECTIONS} connections, ${FAMILIES} token families`);
runBench(
  "bench:oauth",
  {
    CANOPY_RATE_LIMIT_AUTHENTICATED: UNLIMITED,
    CANOPY_RATE_LIMIT_UNAUTHENTICATED: UNLIMITED,
    CANOPY_RATE_LIMIT_OAUTH: UNLIMITED,
    // Seeding uses the password grant, which spends from the sign-in budget.
    CANOPY_RATE_LIMIT_SIGN_IN: UNLIMITED,
  },
  (stack) => main(stack, started),
);
