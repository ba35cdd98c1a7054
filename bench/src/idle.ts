#!/usr/bin/env node
// `npm run bench:idle`: the whole stack's resident memory at rest. Starts the stack as `npm start`
// does (deploy/start.mjs, one replica of every service unless BENCH_REPLICAS says more), waits until
// it is ready and then BENCH_STACK_SETTLE_SECONDS (60) more, so V8's memory reducer has run (it gives
// back startup's garbage 8-25 s after start), then reads every process under the launcher every
// second for BENCH_STACK_SAMPLE_SECONDS (10). The figure is the highest sum seen. Counted: the
// launcher (node deploy/start.mjs) and every process it started (every service replica, the gateway
// included). Not counted: PostgreSQL, Redis and NATS (the machine's servers, shared with every other
// user; the stack's own PostgreSQL backends are shown beside), and an `npm start` wrapper's npm
// process (Docker and Helm run the services without either). Target: ≤ 600 MB.
import { Client } from "pg";
import { intFromEnv, say, seconds, table } from "./report";
import { megabytes, num, rssFigure, verdictOf, writeResult, type Figure } from "./results";
import { processMemory, stackMemory, type ProcessMemory } from "./stack-memory";
import { runBench, type BenchStack } from "./stack";

const SETTLE_SECONDS = intFromEnv("BENCH_STACK_SETTLE_SECONDS", 60);
const SAMPLE_SECONDS = Math.max(1, intFromEnv("BENCH_STACK_SAMPLE_SECONDS", 10));
const REPLICAS = Math.max(1, intFromEnv("BENCH_REPLICAS", 1));
const TARGET_STACK_MB = 600;
/** Issue 2's ceiling for each idle process. */
const TARGET_PROCESS_MB = 120;

const sum = (ps: ProcessMemory[], key: "rss" | "anon" | "file" | "pss") =>
  ps.reduce((n, p) => n + (p[key] ?? 0), 0);
const mb = (bytes: number | undefined) => (bytes === undefined ? "n/a" : num(megabytes(bytes), 1));
/** MB with one decimal, as a number for the JSON. */
const mbValue = (bytes: number | undefined) =>
  bytes === undefined ? undefined : Number(megabytes(bytes).toFixed(1));

/** The PostgreSQL backends connected to the stack's database (its pools), for the record. */
async function databaseBackends(stack: BenchStack): Promise<ProcessMemory[]> {
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.map((r) => processMemory(r.pid, "postgres")).filter((p): p is ProcessMemory => !!p);
  } finally {
    await db.end();
  }
}

/** A service's V8 heap (used, allocated) from its /metrics (prom-client's default metrics), bytes. */
async function heapOf(stack: BenchStack, name: string): Promise<[number, number] | undefined> {
  const port = stack.healthPorts[name];
  if (!port) return undefined; // a replica ("auth#2"): its health port is the launcher's choice
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const metric = (m: string) => Number(new RegExp(`^${m} (\\S+)$`, "m").exec(text)?.[1]);
    const used = metric("nodejs_heap_size_used_bytes");
    const total = metric("nodejs_heap_size_total_bytes");
    return Number.isFinite(used) && Number.isFinite(total) ? [used, total] : undefined;
  } catch {
    return undefined;
  }
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready (${seconds(started)}); resting ${SETTLE_SECONDS} s, then ${SAMPLE_SECONDS} samples`);
  await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
  let highest: ProcessMemory[] = [];
  const totals: number[] = [];
  for (let i = 0; i < SAMPLE_SECONDS; i++) {
    const sample = stackMemory(stack.launcherPid);
    totals.push(sum(sample, "rss"));
    if (sum(sample, "rss") >= sum(highest, "rss")) highest = sample;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const backends = await databaseBackends(stack);
  const heaps = new Map<string, [number, number] | undefined>();
  for (const p of highest) heaps.set(p.name, await heapOf(stack, p.name));
  const heapCell = (name: string) => {
    const heap = heaps.get(name);
    return heap ? `${mb(heap[0])} / ${mb(heap[1])}` : "n/a";
  };

  const total = sum(highest, "rss");
  const hasPss = highest.every((p) => p.pss !== undefined);
  say("");
  table([
    ["process", "pid", "RSS MB", "anon MB", "file MB", "PSS MB", "V8 heap used / allocated MB"],
    ...highest.map((p) => [
      p.name,
      String(p.pid),
      mb(p.rss),
      mb(p.anon),
      mb(p.file),
      mb(p.pss),
      heapCell(p.name),
    ]),
    [
      "stack (counted)",
      "",
      mb(total),
      mb(sum(highest, "anon")),
      mb(sum(highest, "file")),
      hasPss ? mb(sum(highest, "pss")) : "n/a",
      "",
    ],
    [
      `postgres backends (${backends.length}, not counted)`,
      "",
      mb(sum(backends, "rss")),
      mb(sum(backends, "anon")),
      mb(sum(backends, "file")),
      mb(sum(backends, "pss")),
      "",
    ],
  ]);
  say(
    `\nstack RSS over the ${SAMPLE_SECONDS} samples: ${totals.map((t) => num(megabytes(t))).join(", ")} MB`,
  );
  say(`whole stack idle RSS ${mb(total)} MB (target ≤ ${TARGET_STACK_MB} MB); ${seconds(started)} in all`);

  const figures: Figure[] = [
    {
      case: `whole stack idle RSS (launcher + ${highest.length - 1} service processes)`,
      figure: `${mb(total)} MB${hasPss ? ` (PSS ${mb(sum(highest, "pss"))} MB)` : ""}`,
      value: Number(megabytes(total).toFixed(1)),
      unit: "MB",
      target: `≤ ${TARGET_STACK_MB} MB`,
      verdict: verdictOf(megabytes(total) <= TARGET_STACK_MB),
    },
    // Each process with what its RSS is made of: its own memory (anon, the V8 heap part of it) and
    // mapped files (mostly node's code, which all of them share: PSS counts it once).
    ...highest.map((p) => {
      const f = rssFigure(p.name, p.rss, TARGET_PROCESS_MB);
      const heap = heaps.get(p.name);
      const parts = [
        `anon ${mb(p.anon)}`,
        `file ${mb(p.file)}`,
        ...(heap ? [`V8 heap ${heapCell(p.name)}`] : []),
      ];
      return { ...f, figure: `${f.figure} (${parts.join(", ")}; PSS ${mb(p.pss)})` };
    }),
    {
      case: `PostgreSQL backends of the stack's database (${backends.length}; not counted)`,
      figure: `${mb(sum(backends, "rss"))} MB (PSS ${mb(sum(backends, "pss"))} MB)`,
    },
  ];
  writeResult({
    bench: "idle",
    settings: { replicas: REPLICAS, settleSeconds: SETTLE_SECONDS, sampleSeconds: SAMPLE_SECONDS },
    figures,
    details: {
      counted: "the launcher (node deploy/start.mjs) and every process under it",
      megabytes: highest.map((p) => ({
        name: p.name,
        pid: p.pid,
        rss: mbValue(p.rss),
        anon: mbValue(p.anon),
        file: mbValue(p.file),
        pss: mbValue(p.pss),
        heapUsed: mbValue(heaps.get(p.name)?.[0]),
        heapAllocated: mbValue(heaps.get(p.name)?.[1]),
      })),
      totalsMb: totals.map(mbValue),
      postgresBackendsMb: backends.map((p) => ({ pid: p.pid, rss: mbValue(p.rss), pss: mbValue(p.pss) })),
    },
  });
}

const started = Date.now();
say(`bench:idle: the whole stack at rest, ${REPLICAS} replica(s) of every service`);
runBench("bench:idle", REPLICAS > 1 ? { CANOPY_REPLICAS: String(REPLICAS) } : {}, (stack) =>
  main(stack, started),
);
