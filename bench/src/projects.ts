#!/usr/bin/env node
// `npm run bench:projects`: what the Projects API costs at scale. Starts the stack as `npm start`
// does, writes bench:groups' group tree into the groups schema and the projects service's copies of it
// plus the projects straight into the projects schema (projects-dataset.ts), then loads the gateway,
// each case beside GET /-/health in the same run:
//   GET /groups/:id/projects?include_subgroups=true   page 1 of the 10,000 projects under the big
//                                                     root, as its owner (checks X-Total)
//   the same with search
//   GET /projects                                     a signed-in member, default filters
//   GET /groups/:id                                   the member's root, with its 100 projects
// each "cached" and "uncached" (groups-load.ts); a case whose route answers anything but 200 is
// reported and skipped. Prints req/s, p50, p99, the
// ratio to health, CPU per request per process and idle RSS (bench:groups' report).
//
// BENCH_PROJECTS=100000,1000000 measures 100k projects, grows the dataset to 1M on the same stack
// (projects only: the group tree stays) and measures again, then sets each figure at 1M beside its
// 100k value. BENCH_GROUPS (100000), BENCH_GROUP_USERS (10000), BENCH_SECONDS (10),
// BENCH_CONNECTIONS (32), BENCH_ROUNDS (1), BENCH_WARMUP_SECONDS (2), BENCH_IDLE_SETTLE_SECONDS (10), BENCH_MODES,
// BENCH_CASES, BENCH_HOLD and BENCH_KEEP as bench:groups.
import { randomBytes } from "node:crypto";
import { waitForUserCopies } from "./groups-dataset";
import { measure, type LoadOptions, type Mode } from "./groups-load";
import { PROJECTS_PROCESSES, printComparison, printResults, rowFigures, type Results } from "./groups-report";
import { generateProjects, growProjects, type ProjectsDataset } from "./projects-dataset";
import { sampleProcess } from "./proc";
import { intFromEnv, say, seconds, table } from "./report";
import { rssFigure, writeResult } from "./results";
import { runBench, type BenchStack } from "./stack";

const SIZES = (process.env.BENCH_PROJECTS || "100000").split(",").map((v) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 20_000)
    throw new Error("BENCH_PROJECTS: whole numbers of projects (at least 20000), comma-separated");
  return n;
});
const MODES = (process.env.BENCH_MODES || "cached,uncached").split(",") as Mode[];
if (MODES.some((m) => m !== "cached" && m !== "uncached")) throw new Error("BENCH_MODES: cached,uncached");
const GROUPS = intFromEnv("BENCH_GROUPS", 100_000);
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
/** The target for each case, at 32 connections. */
const TARGET = { ratio: 0.2, p99Ms: 50 };

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
  return { status: res.status, json: json as Record<string, unknown>, headers: res.headers };
}

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

type Caller = { id: number; token: string };
/** Cases whose route answered other than 200, so not measured: the report must show them. */
const skipped: [string, number][] = [];

async function measureAll(
  stack: BenchStack,
  data: ProjectsDataset,
  who: { member: Caller; owner: Caller },
  options: LoadOptions,
): Promise<Results> {
  // As python-gitlab (requests) and gitbeaker (fetch) send it: a gzip-capable client.
  const client = { "Accept-Encoding": "gzip, deflate" };
  const asMember = { ...client, "PRIVATE-TOKEN": who.member.token };
  const asOwner = { ...client, "PRIVATE-TOKEN": who.owner.token };
  const subtree = `/groups/${data.bigRootId}/projects?include_subgroups=true`;
  const cases: [string, string, Record<string, string>, string][] = [
    ["GET /groups/:id/projects?include_subgroups", subtree, asOwner, who.owner.token],
    [
      "GET /groups/:id/projects?include_subgroups&search",
      `${subtree}&search=big-p1`,
      asOwner,
      who.owner.token,
    ],
    ["GET /projects (member)", "/projects", asMember, who.member.token],
    ["GET /groups/:id (its 100 projects)", `/groups/${data.memberRootIds[0]}`, asMember, who.member.token],
  ];
  const chosen = cases.filter(([name]) => !CASES.length || CASES.some((c) => name.includes(c)));
  const results: Results = { groups: data.projects, unit: "projects", rows: [] };
  for (const [name, path, headers, token] of chosen) {
    const first = await api(stack, path, token);
    if (first.status !== 200) {
      say(`${name}: ${first.status} ${JSON.stringify(first.json).slice(0, 200)}: not measured`);
      skipped.push([name, first.status]);
      continue;
    }
    const body = first.json as unknown as unknown[] | { projects: unknown[] };
    say(
      Array.isArray(body)
        ? `${name}: X-Total ${first.headers.get("x-total") ?? "(none)"}, ${body.length} on page 1`
        : `${name}: ${body.projects.length} projects in the detail`,
    );
    for (const mode of MODES)
      results.rows.push({
        name,
        mode,
        connections: CONNECTIONS,
        ...(await measure(`${stack.url}/api/v4${path}`, headers, mode, options)),
      });
  }
  return results;
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready (${seconds(started)})`);
  const idle = await idleRss(stack);
  const member = await realUser(stack, "member");
  const owner = await realUser(stack, "owner");
  await waitForUserCopies(stack.databaseUrl, [member.id, owner.id]);
  const options: LoadOptions = {
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    pids: async () => ({ ...stack.pids, launcher: stack.launcherPid }),
  };
  const bySize: Results[] = [];
  let data: ProjectsDataset | undefined;
  for (const size of SIZES) {
    const generating = Date.now();
    data = data
      ? await growProjects(stack.databaseUrl, data, size, owner.id)
      : await generateProjects(stack.databaseUrl, {
          groups: GROUPS,
          users: USERS,
          projects: size,
          memberId: member.id,
          ownerId: owner.id,
        });
    say(`\n== ${data.projects} projects over ${data.groups} groups, made in ${seconds(generating)}`);
    if (HOLD) {
      say(`BENCH_HOLD: ${stack.url} member ${member.token} owner ${owner.token} db ${stack.databaseUrl}`);
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }
    const results = await measureAll(stack, data, { member, owner }, options);
    bySize.push(results);
    printResults(results, PROJECTS_PROCESSES);
  }
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
  writeResult({
    bench: "projects",
    settings: {
      projects: bySize.map((r) => r.groups).join(", "),
      groups: GROUPS,
      users: USERS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
    },
    figures: [
      ...bySize.flatMap((results) =>
        rowFigures(
          results,
          (r) => (r.connections === 32 ? TARGET : undefined),
          bySize.length > 1 ? `${results.groups} projects: ` : "",
        ),
      ),
      ...skipped.map(([name, status]) => ({
        case: name,
        figure: `answered ${status}: not measured`,
        target: "200",
        verdict: "MISSED" as const,
      })),
      rssFigure("projects", idle.projects, TARGET_IDLE_RSS_MB),
    ],
  });
}

const started = Date.now();
say(
  `bench:projects: ${SIZES.join(" then ")} projects over ${GROUPS} groups, ${SECONDS} s per endpoint, ${CONNECTIONS} connections`,
);
runBench(
  "bench:projects",
  { CANOPY_RATE_LIMIT_AUTHENTICATED: UNLIMITED, CANOPY_RATE_LIMIT_UNAUTHENTICATED: UNLIMITED },
  (stack) => main(stack, started),
);
