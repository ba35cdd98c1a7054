#!/usr/bin/env node
// `npm run bench:groups`: what the Groups API costs at scale. Starts the stack as `npm start` does,
// writes the dataset straight into the groups schema (groups-dataset.ts), then loads the gateway,
// each case beside GET /-/health in the same run:
//   GET /groups                      a signed-in member, default filters (checks X-Total)
//   GET /groups?all_available=true   the same member, everything visible to them
//   GET /groups                      an administrator: every group (> 10,000 rows: no X-Total)
//   GET /groups/:id                  one of the member's groups
//   GET /groups/:id/descendant_groups  page 1 of the 10,000-group subtree, as its owner (also at
//                                    BENCH_LATENCY_CONNECTIONS, 1, for its latency without queueing)
// each "cached" (the same request again and again: the gateway's answer cache) and "uncached" (every
// request different, so each reaches the groups service and PostgreSQL). It prints req/s, p50, p99,
// the ratio to health, the CPU each request cost in each process (and in the rest of the machine,
// mostly PostgreSQL) and each process's idle RSS. A report, not a test.
//
// BENCH_GROUPS=100000,1000000 measures 100k groups, grows the same dataset to 1M on the same stack
// and measures again, then sets each figure at 1M beside its 100k value (paired, so the machine's
// drift between runs does not pass for cost). One number measures one size.
//
// BENCH_GROUPS (100000), BENCH_GROUP_USERS (10000), BENCH_SECONDS (10), BENCH_CONNECTIONS (32),
// BENCH_ROUNDS (1: rounds of each case beside health, the round with the median ratio kept),
// BENCH_WARMUP_SECONDS (2), BENCH_IDLE_SETTLE_SECONDS (10), BENCH_MODES (cached,uncached);
// BENCH_CASES=member,admin runs only the cases whose name contains one of the words; BENCH_HOLD=1
// prints the stack's URL, tokens and database and waits for Ctrl-C before loading (to profile by
// hand); BENCH_KEEP=1 keeps the database.
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { generateGroups, growGroups, waitForUserCopies, type Dataset } from "./groups-dataset";
import { measure, type LoadOptions, type Mode } from "./groups-load";
import { printComparison, printResults, rowFigures, type Results, type Row } from "./groups-report";
import { sampleProcess } from "./proc";
import { intFromEnv, say, seconds, table } from "./report";
import { rssFigure, verdictOf, writeResult, type Figure } from "./results";
import { runBench, type BenchStack } from "./stack";

/** Dataset sizes, measured in turn on one stack: "100000,1000000" grows the first dataset to the second. */
const SIZES = (process.env.BENCH_GROUPS || "100000").split(",").map((v) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 100)
    throw new Error("BENCH_GROUPS: whole numbers of groups, comma-separated");
  return n;
});
const MODES = (process.env.BENCH_MODES || "cached,uncached").split(",") as Mode[];
if (MODES.some((m) => m !== "cached" && m !== "uncached")) throw new Error("BENCH_MODES: cached,uncached");
const LATENCY_CONNECTIONS = intFromEnv("BENCH_LATENCY_CONNECTIONS", 1);
const DESCENDANTS = "GET /groups/:id/descendant_groups";
const USERS = intFromEnv("BENCH_GROUP_USERS", 10_000);
const SECONDS = intFromEnv("BENCH_SECONDS", 10);
const CONNECTIONS = intFromEnv("BENCH_CONNECTIONS", 32);
const ROUNDS = intFromEnv("BENCH_ROUNDS", 1);
const WARMUP_SECONDS = intFromEnv("BENCH_WARMUP_SECONDS", 2);
const IDLE_SETTLE_SECONDS = intFromEnv("BENCH_IDLE_SETTLE_SECONDS", 10);
const UNLIMITED = "1000000000";
const TARGET_IDLE_RSS_MB = 120;
const CASES = (process.env.BENCH_CASES ?? "").split(",").filter(Boolean);
const HOLD = process.env.BENCH_HOLD === "1";
/** The targets: the member's list at 32 connections, and the descendants page's own latency. */
const TARGET_MEMBER = { ratio: 0.25, p99Ms: 50 };
const TARGET_DESCENDANTS = { p50Ms: 5 };
const targetOf = (r: Row) =>
  r.name === "GET /groups (member)" && r.connections === 32
    ? TARGET_MEMBER
    : r.name === DESCENDANTS && r.connections === 1
      ? TARGET_DESCENDANTS
      : undefined;

async function api(stack: BenchStack, path: string, token: string, body?: unknown) {
  const res = await fetch(`${stack.url}/api/v4${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "PRIVATE-TOKEN": token,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return { json: json as Record<string, unknown>, headers: res.headers };
}

/** A real user (through the API) with a read_api token: only real users can call. */
async function realUser(stack: BenchStack, label: string) {
  const username = `bench-${label}-${randomBytes(3).toString("hex")}`;
  const { json: user } = await api(stack, "/users", stack.rootToken, {
    username,
    email: `${username}@example.com`,
    name: `Bench ${label}`,
    password: randomBytes(12).toString("base64url"),
    skip_confirmation: true,
  });
  const { json: token } = await api(stack, `/users/${user.id}/personal_access_tokens`, stack.rootToken, {
    name: "bench",
    scopes: ["read_api"],
  });
  return { id: Number(user.id), token: String(token.token) };
}

/** The PostgreSQL backends serving the stack's database, summed as one "postgres" process. */
async function databaseBackends(databaseUrl: string) {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  return {
    pids: async () => {
      const { rows } = await db.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      return Object.fromEntries(rows.map((r) => [`postgres ${r.pid}`, r.pid]));
    },
    close: () => db.end(),
  };
}

/** BENCH_HOLD=1: what one needs to load or inspect the stack by hand, then wait for Ctrl-C. */
async function hold(stack: BenchStack, what: Record<string, unknown>) {
  say(`BENCH_HOLD: ${stack.url}  root token ${stack.rootToken}`);
  say(`  database ${stack.databaseUrl}`);
  say(`  pids ${JSON.stringify({ ...stack.pids, launcher: stack.launcherPid })}`);
  say(`  ${JSON.stringify(what)}`);
  say("  Ctrl-C to go on with the load");
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
}

async function idleRss(stack: BenchStack) {
  const lowest: Record<string, number> = {};
  for (let i = 0; i < IDLE_SETTLE_SECONDS; i++) {
    await new Promise((r) => setTimeout(r, 1_000));
    for (const [name, pid] of Object.entries(stack.pids)) {
      const rss = pid ? sampleProcess(pid)?.rss : undefined;
      if (rss !== undefined) lowest[name] = Math.min(lowest[name] ?? Infinity, rss);
    }
  }
  return lowest;
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready (${seconds(started)})`);
  const idle = await idleRss(stack);
  const member = await realUser(stack, "member");
  const owner = await realUser(stack, "owner");
  await waitForUserCopies(stack.databaseUrl, [member.id, owner.id]);
  const backends = await databaseBackends(stack.databaseUrl);
  const options: LoadOptions = {
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    pids: async () => ({ ...stack.pids, launcher: stack.launcherPid, ...(await backends.pids()) }),
  };
  const bySize: Results[] = [];
  let data: Dataset | undefined;
  for (const size of SIZES) {
    const generating = Date.now();
    data = data
      ? await growGroups(stack.databaseUrl, data, size)
      : await generateGroups(stack.databaseUrl, {
          groups: size,
          users: USERS,
          memberId: member.id,
          bigTreeOwnerId: owner.id,
        });
    say(`\n== ${data.groups} groups (${USERS} users), made in ${seconds(generating)}`);
    const results = await measureAll(stack, data, { member, owner }, options);
    bySize.push(results);
    printResults(results);
  }
  await backends.close();
  if (bySize.length > 1) printComparison(bySize[0]!, bySize.at(-1)!);
  say("");
  const mb = (b: number | undefined) => (b === undefined ? "n/a" : `${(b / 1048576).toFixed(1)} MB`);
  table([
    ["idle RSS", "MB", `<= ${TARGET_IDLE_RSS_MB} MB`],
    ...Object.entries(idle).map(([name, rss]) => [
      name,
      mb(rss),
      rss <= TARGET_IDLE_RSS_MB * 1048576 ? "ok" : "MISSED",
    ]),
  ]);
  say(`\n${seconds(started)} in all`);
  const figures: Figure[] = bySize.flatMap((results) => {
    const prefix = bySize.length > 1 ? `${results.groups} groups: ` : "";
    return [...(results.checks ?? []), ...rowFigures(results, targetOf, prefix)];
  });
  figures.push(rssFigure("groups", idle.groups, TARGET_IDLE_RSS_MB));
  writeResult({
    bench: "groups",
    settings: {
      groups: bySize.map((r) => r.groups).join(", "),
      users: USERS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
    },
    figures,
  });
}

interface Caller {
  id: number;
  token: string;
}

async function measureAll(
  stack: BenchStack,
  data: Dataset,
  who: { member: Caller; owner: Caller },
  options: LoadOptions,
): Promise<Results> {
  const first = await api(stack, "/groups", who.member.token);
  const expectedTotal = data.memberRootIds.length * 10;
  say(`member's GET /groups: X-Total ${first.headers.get("x-total")} (expected ${expectedTotal})`);
  const checks: Figure[] = [
    {
      case: "member's GET /groups: X-Total",
      figure: String(first.headers.get("x-total")),
      target: `= ${expectedTotal}`,
      verdict: verdictOf(first.headers.get("x-total") === String(expectedTotal)),
    },
  ];
  const admin = await api(stack, "/groups", stack.rootToken);
  say(`admin's GET /groups: X-Total ${admin.headers.get("x-total") ?? "(none: more than 10,000)"}`);
  const asMember = { "PRIVATE-TOKEN": who.member.token };
  const asOwner = { "PRIVATE-TOKEN": who.owner.token };
  const cases: [string, string, Record<string, string>][] = [
    ["GET /groups (member)", "/api/v4/groups", asMember],
    ["GET /groups?all_available=true", "/api/v4/groups?all_available=true", asMember],
    ["GET /groups (admin)", "/api/v4/groups", { "PRIVATE-TOKEN": stack.rootToken }],
    ["GET /groups/:id", `/api/v4/groups/${data.memberRootIds[0]}`, asMember],
    [DESCENDANTS, `/api/v4/groups/${data.bigRootId}/descendant_groups`, asOwner],
  ];
  if (HOLD) await hold(stack, { member: who.member.token, owner: who.owner.token, data });
  const chosen = cases.filter(([name]) => !CASES.length || CASES.some((c) => name.includes(c)));
  const results: Results = { groups: data.groups, rows: [], checks };
  for (const [name, path, headers] of chosen)
    for (const mode of MODES)
      results.rows.push({
        name,
        mode,
        connections: CONNECTIONS,
        ...(await measure(`${stack.url}${path}`, headers, mode, options)),
      });
  // The descendants page's own latency, without 32 connections queueing on two cores.
  const descendants = chosen.find(([name]) => name === DESCENDANTS);
  if (descendants && LATENCY_CONNECTIONS !== CONNECTIONS)
    for (const mode of MODES)
      results.rows.push({
        name: DESCENDANTS,
        mode,
        connections: LATENCY_CONNECTIONS,
        ...(await measure(`${stack.url}${descendants[1]}`, descendants[2], mode, {
          ...options,
          connections: LATENCY_CONNECTIONS,
        })),
      });
  return results;
}

const started = Date.now();
say(
  `bench:groups: ${SIZES.join(" then ")} groups, ${USERS} users, ${SECONDS} s per endpoint, ${CONNECTIONS} connections`,
);
runBench(
  "bench:groups",
  { CANOPY_RATE_LIMIT_AUTHENTICATED: UNLIMITED, CANOPY_RATE_LIMIT_UNAUTHENTICATED: UNLIMITED },
  (stack) => main(stack, started),
);
