#!/usr/bin/env node
// `npm run bench`: every bench in turn, each at its default size, each in a process of its own (as
// `npm run bench:<name>` runs it) so that one that crashes does not hide the others. Each writes its
// figures to a file of its own (BENCH_RESULT_FILE, results.ts); this gathers them with the machine,
// the date, the load average and Node's version into bench/results/latest.json and latest.md, and
// rewrites the README's copy (between <!-- bench:begin --> and <!-- bench:end -->).
//
// BENCH_QUICK=1 runs every bench at small sizes, to check the whole run works in a few minutes;
// BENCH_ONLY=auth,idle runs some. Either writes bench/results/check.json and check.md instead, and
// leaves latest.* and the README alone; BENCH_ONLY=... BENCH_UPDATE=1 (full sizes) puts the benches
// it ran into latest.* and the README in place of their earlier runs (the report names them). BENCH_TIMEOUT_MINUTES (30): a bench running longer is stopped
// (Ctrl-C, then killed 30 s later) and reported failed. A bench that ends without writing its result
// runs again, up to BENCH_ATTEMPTS (2) times in all. Other BENCH_* variables pass through to every
// bench (e.g. BENCH_SECONDS). Exits 1 when a bench failed (crashed, timed out, or, for bench:hooks,
// lost or doubled a delivery); a missed target is a figure, not a failure.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./manifest";
import { say } from "./report";
import type { BenchResult } from "./results";
import { duration, renderMarkdown, replaceBlock, type BenchRun, type Report } from "./summary";

/** In order: the idle stack first, while the machine's database holds nothing of the others. */
const BENCHES = ["idle", "auth", "oauth", "groups", "projects", "hooks", "ldap"] as const;
type Bench = (typeof BENCHES)[number];

/** BENCH_QUICK=1: sizes that finish in a minute or two each; the figures only show the run works. */
const QUICK: Record<Bench, Record<string, string>> = {
  idle: { BENCH_STACK_SETTLE_SECONDS: "5", BENCH_STACK_SAMPLE_SECONDS: "3" },
  auth: {
    BENCH_SECONDS: "2",
    BENCH_WARMUP_SECONDS: "1",
    BENCH_USERS: "10",
    BENCH_PAIRED_ROUNDS: "1",
    BENCH_IDLE_SETTLE_SECONDS: "3",
  },
  oauth: { BENCH_SECONDS: "2", BENCH_WARMUP_SECONDS: "1" },
  groups: {
    BENCH_GROUPS: "2000",
    BENCH_GROUP_USERS: "200",
    BENCH_SECONDS: "1",
    BENCH_WARMUP_SECONDS: "0",
    BENCH_IDLE_SETTLE_SECONDS: "2",
  },
  projects: {
    BENCH_PROJECTS: "20000",
    BENCH_GROUPS: "2000",
    BENCH_GROUP_USERS: "200",
    BENCH_SECONDS: "1",
    BENCH_WARMUP_SECONDS: "0",
    BENCH_IDLE_SETTLE_SECONDS: "2",
  },
  hooks: {
    BENCH_HOOK_RATE: "20",
    BENCH_SECONDS: "5",
    BENCH_WARMUP_SECONDS: "2",
    BENCH_DRAIN_SECONDS: "30",
    BENCH_HOOK_GROUPS: "2",
  },
  ldap: { BENCH_LDAP_MEMBERS: "200" },
};

const QUICK_MODE = process.env.BENCH_QUICK === "1";
const ONLY = (process.env.BENCH_ONLY ?? "").split(",").filter(Boolean);
const unknown = ONLY.filter((b) => !(BENCHES as readonly string[]).includes(b));
if (unknown.length) throw new Error(`BENCH_ONLY: no bench ${unknown.join(", ")} (${BENCHES.join(", ")})`);
const CHOSEN = BENCHES.filter((b) => !ONLY.length || ONLY.includes(b));
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MINUTES || 30) * 60_000;
/** Runs of a bench that crashes before it writes its result (BENCH_ATTEMPTS). */
const ATTEMPTS = Math.max(1, Number(process.env.BENCH_ATTEMPTS || 2));
/** How much of a failed bench's output the report keeps. */
const ERROR_LINES = 3;
const RESULTS = path.join(REPO_ROOT, "bench", "results");
const LATEST = path.join(RESULTS, "latest.json");
const UPDATE = process.env.BENCH_UPDATE === "1";
const README = path.join(REPO_ROOT, "README.md");

/** Ctrl-C: the running bench is stopped and no other starts; the report covers what ran. */
let interrupted = false;
const load1 = () => Number(os.loadavg()[0]!.toFixed(2));

/** Runs one bench as `npm run bench:<name>` would, its output shown line by line with its name. */
async function runOne(bench: Bench): Promise<BenchRun> {
  const resultFile = path.join(os.tmpdir(), `canopy-bench-${randomBytes(6).toString("hex")}-${bench}.json`);
  const started = Date.now();
  const startedIso = new Date(started).toISOString();
  const loadAtStart = load1();
  const child = spawn(process.execPath, [path.join(__dirname, `${bench}.js`)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...(QUICK_MODE ? QUICK[bench] : {}), BENCH_RESULT_FILE: resultFile },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // a group of its own, so a timeout stops the bench and the stack it started
  });
  let tail: string[] = [];
  let failure: string | undefined;
  let partial = "";
  const relay = (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!;
    for (const line of lines) process.stdout.write(`[${bench}] ${line}\n`);
    tail = [...tail, ...lines.filter((l) => l.trim())].slice(-ERROR_LINES);
    // runBench's "bench:<name> failed: <error>" says more than the stack trace after it.
    failure = lines.find((l) => l.startsWith(`bench:${bench} failed: `)) ?? failure;
  };
  child.stdout.on("data", relay);
  child.stderr.on("data", relay);
  const stopGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    say(`[${bench}] still running after ${duration(TIMEOUT_MS / 1000)}: stopping it`);
    stopGroup("SIGINT");
    setTimeout(() => stopGroup("SIGKILL"), 30_000).unref();
  }, TIMEOUT_MS);
  const onSigint = () => {
    interrupted = true;
    stopGroup("SIGINT");
  };
  process.on("SIGINT", onSigint);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("close", (code, sig) => resolve([code, sig])),
  );
  clearTimeout(timer);
  process.off("SIGINT", onSigint);
  if (partial.trim()) relay(Buffer.from("\n"));

  let result: BenchResult | undefined;
  if (existsSync(resultFile)) {
    result = JSON.parse(readFileSync(resultFile, "utf8")) as BenchResult;
    rmSync(resultFile);
  }
  const ok = exitCode === 0 && result;
  return {
    bench,
    started: startedIso,
    exitCode,
    ...(signal ? { signal } : {}),
    seconds: Math.round((Date.now() - started) / 1000),
    loadAverage: [loadAtStart, load1()],
    ...(result ? { result } : {}),
    ...(ok ? {} : { error: `${timedOut ? "timed out; " : ""}${failure ?? tail.join(" / ")}` }),
  };
}

function machine(): Report["machine"] {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGb: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    os: `${os.type()} ${os.release()}`,
  };
}

/** `latest` with each of `runs` in place of the same bench's run. */
function updated(latest: Report, runs: BenchRun[]): Report {
  return {
    ...latest,
    runs: latest.runs.map((old) => runs.find((r) => r.bench === old.bench) ?? old),
  };
}

async function main() {
  const started = Date.now();
  const report: Report = {
    date: new Date(started).toISOString(),
    mode: QUICK_MODE ? "quick" : "full",
    machine: machine(),
    node: process.version,
    loadAverage: [load1(), 0],
    seconds: 0,
    runs: [],
  };
  say(`npm run bench: ${CHOSEN.join(", ")}${QUICK_MODE ? " (quick mode: small sizes)" : ""}`);
  for (const bench of CHOSEN) {
    if (interrupted) break;
    say(`\n=== bench:${bench} (load average ${load1()})`);
    let run = await runOne(bench);
    // A bench that wrote nothing crashed; on a machine shared with other work that is often a stack
    // too slow to start or answer in time. It gets another go; the report says how many it took.
    for (let attempt = 2; !run.result && !interrupted && attempt <= ATTEMPTS; attempt++) {
      say(`=== bench:${bench} wrote no result (${run.error}); attempt ${attempt} of ${ATTEMPTS}`);
      run = { ...(await runOne(bench)), attempts: attempt };
    }
    report.runs.push(run);
    say(`=== bench:${bench}: exit ${run.exitCode ?? run.signal} after ${duration(run.seconds)}`);
  }
  report.loadAverage[1] = load1();
  report.seconds = Math.round((Date.now() - started) / 1000);

  // Only a full run of every bench is the report; a quick or partial run is a check, unless
  // BENCH_UPDATE=1 puts a full-size partial run's benches into the last report in place of theirs.
  const update = UPDATE && !QUICK_MODE && !interrupted && existsSync(LATEST);
  const complete = update || (!QUICK_MODE && !interrupted && CHOSEN.length === BENCHES.length);
  const final = update ? updated(JSON.parse(readFileSync(LATEST, "utf8")) as Report, report.runs) : report;
  const markdown = renderMarkdown(final);
  const name = complete ? "latest" : "check";
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(final, null, 2)}\n`);
  writeFileSync(path.join(RESULTS, `${name}.md`), markdown);
  if (complete) writeFileSync(README, replaceBlock(readFileSync(README, "utf8"), markdown));
  say(`\n${markdown}`);
  say(
    `wrote bench/results/${name}.json and ${name}.md${complete ? " and the README's Benchmarks table" : ""}` +
      ` (${duration(report.seconds)} in all)`,
  );
  if (report.runs.some((r) => r.exitCode !== 0 || !r.result)) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`npm run bench failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
