#!/usr/bin/env node
// `npm run bench:hooks`: group webhooks under load. Starts the stack as `npm start` does (plan
// ultimate, which has group_webhooks), lets hooks reach 127.0.0.1 (the application setting
// allow_local_requests_from_web_hooks_and_services), puts three hooks (subgroup and member events)
// on one group, all pointing at a receiver in a process of its own, then drives BENCH_HOOK_RATE
// (200) group events per second for BENCH_SECONDS (60) through the API, open loop (hooks-load.ts:
// subgroups created, two events each). Each event fans out to the three hooks. After the load it waits up to BENCH_DRAIN_SECONDS (60)
// for the last deliveries, then reports end-to-end latency (the API call's start to the receiver
// seeing the delivery: p50, p99, max), deliveries per second, and deliveries lost or doubled.
// Targets: p99 <= 1 s, none lost, none doubled; it exits 1 when one is lost or doubled.
//
// BENCH_KEEP=1 keeps the database. The hooks service's own settings pass through: CANOPY_HOOK_WORKERS, CANOPY_HOOK_POLL_MS,
// CANOPY_HOOK_ORDER_HOLD_SECONDS, ... (unset: the service's defaults).
import autocannon from "autocannon";
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { cpuPerRequest, cpuSnapshot } from "./cpu";
import { drive, matchesOf, type Call, type LoadPlan } from "./hooks-load";
import { openProbe, type Sample } from "./hooks-probe";
import type { Receipt, ReceiverReply, ReceiverRequest } from "./hooks-receiver";
import { hooksFigures, printReport, type HooksReport } from "./hooks-print";
import { reckon } from "./hooks-report";
import { intFromEnv, say, seconds } from "./report";
import { writeResult } from "./results";
import { runBench, type BenchStack } from "./stack";

const RATE = intFromEnv("BENCH_HOOK_RATE", 200);
const SECONDS = intFromEnv("BENCH_SECONDS", 60);
const DRAIN_SECONDS = intFromEnv("BENCH_DRAIN_SECONDS", 60);
/** Seconds of load at half the rate before the measured load (not counted). */
const WARMUP_SECONDS = intFromEnv("BENCH_WARMUP_SECONDS", 10);
/**
 * Seconds of GET /-/health on the warmed-up stack before the load: the machine's yardstick, since
 * the same code meets or misses the latency target by the machine it runs on.
 */
const HEALTH_SECONDS = intFromEnv("BENCH_HEALTH_SECONDS", 3);
/**
 * Hooked groups, each a tree of its own with the three hooks: the groups service orders a tree's
 * structural changes by a lock on its root, so one tree takes one subgroup at a time, and an instance's
 * events come from many trees.
 */
const GROUPS = intFromEnv("BENCH_HOOK_GROUPS", 10);
const HOOKS = ["hook-1", "hook-2", "hook-3"];
const UNLIMITED = "1000000000";
/** The hooks service's settings a run may set; the stack passes no other CANOPY_ variable on. */
const HOOK_SETTINGS = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.startsWith("CANOPY_HOOK_")),
) as Record<string, string>;

async function api(stack: BenchStack, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.url}/api/v4${path}`, {
    method,
    headers: {
      "PRIVATE-TOKEN": stack.rootToken,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function ok(stack: BenchStack, method: string, path: string, body?: unknown) {
  const res = await api(stack, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

/** The receiver in its own process, and a way to ask it things. */
class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<Receiver> {
    const child = fork(path.join(__dirname, "hooks-receiver.js"), [], { stdio: "inherit" });
    const port = await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`the receiver exited with code ${code}`)));
      child.once("message", (m: ReceiverReply) => m.type === "listening" && resolve(m.port));
    });
    return new Receiver(child, port);
  }

  private ask<T extends "count" | "dump">(type: T): Promise<Extract<ReceiverReply, { type: T }>> {
    return new Promise((resolve) => {
      const on = (m: ReceiverReply) => {
        if (m.type !== type) return;
        this.child.off("message", on);
        resolve(m as Extract<ReceiverReply, { type: T }>);
      };
      this.child.on("message", on);
      this.child.send({ type } satisfies ReceiverRequest);
    });
  }

  count = async () => (await this.ask("count")).count;
  receipts = async (): Promise<Receipt[]> => (await this.ask("dump")).receipts;
  reset = () => this.child.send({ type: "reset" } satisfies ReceiverRequest);
  stop = () => this.child.kill();
}

/** Polls `until` every 200 ms for at most `ms`; returns whether it came true. */
async function waitUntil(ms: number, until: () => Promise<boolean>): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200)))
    if (await until()) return true;
  return false;
}

/**
 * A call that did not answer 201 may still have created its subgroup (a 503 or a timeout after the
 * commit): its events are expected when the subgroup exists. Returns how many did.
 */
async function settle(stack: BenchStack, parentPaths: string[], calls: Call[]): Promise<number> {
  let committed = 0;
  for (const call of calls.filter((c) => c.error)) {
    const url = `/groups/${encodeURIComponent(`${parentPaths[call.parent]}/${call.path}`)}`;
    // Asked again while the stack is still too busy to answer (a 503 says nothing either way).
    let res = await api(stack, "GET", url);
    for (let i = 0; i < 20 && res.status !== 200 && res.status !== 404; i++) {
      await new Promise((r) => setTimeout(r, 500));
      res = await api(stack, "GET", url);
    }
    if (res.status !== 200) continue;
    call.matches = matchesOf(call.path);
    committed++;
  }
  return committed;
}

/** The hooked groups, each with its three hooks on the receiver (every group's hook-1 at /hook-1, ...). */
async function setUp(stack: BenchStack, receiver: Receiver, label: string) {
  await ok(stack, "PUT", "/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
  const groups: { groupId: number; path: string }[] = [];
  for (let i = 0; i < GROUPS; i++) groups.push(await hookedGroup(stack, receiver, `${label}-${i}`));
  return { groupIds: groups.map((g) => g.groupId), paths: groups.map((g) => g.path) };
}

async function hookedGroup(stack: BenchStack, receiver: Receiver, label: string) {
  const group = await ok(stack, "POST", "/groups", { name: `Hooked ${label}`, path: `hooked-${label}` });
  for (const hook of HOOKS) {
    const body = {
      url: `http://127.0.0.1:${receiver.port}/${hook}`,
      push_events: false,
      subgroup_events: true,
      member_events: true,
    };
    // The hooks service learns the setting from its bucket a moment after auth wrote it: until
    // then a local URL is refused (422).
    let last = { status: 0, json: {} as Record<string, unknown> };
    const created = await waitUntil(10_000, async () => {
      last = await api(stack, "POST", `/groups/${group.id}/hooks`, body);
      return last.status === 201;
    });
    if (!created) throw new Error(`hook ${hook}: ${last.status} ${JSON.stringify(last.json)}`);
  }
  return { groupId: Number(group.id), path: String(group.full_path) };
}

async function main(stack: BenchStack, started: number) {
  say(`stack ready (${seconds(started)})`);
  const receiver = await Receiver.start();
  const probe = await openProbe(stack.databaseUrl, stack.eventStream);
  try {
    const label = randomBytes(3).toString("hex");
    const setup = await setUp(stack, receiver, label);
    const plan = (over: Partial<LoadPlan>): LoadPlan => ({
      url: stack.url,
      token: stack.rootToken,
      groupIds: setup.groupIds,
      rate: RATE,
      seconds: SECONDS,
      label,
      ...over,
    });

    // A warm-up through the whole path at half the rate, not measured, until all of it arrived (a
    // check that deliveries arrive at all): freshly started processes spend their first seconds
    // compiling and preparing (the hooks consumer fell ~200 events behind in the first 10 s at 100
    // events/s, then kept up), which is a cold start, not the rate's latency.
    const warm = await drive(
      plan({ rate: Math.max(1, RATE / 2), seconds: WARMUP_SECONDS, label: `${label}w` }),
    );
    const warmExpected = warm.calls.reduce((n, c) => n + c.matches.length, 0) * HOOKS.length;
    if (!(await waitUntil(120_000, async () => (await receiver.count()) >= warmExpected)))
      throw new Error(`warm-up: ${await receiver.count()} of ${warmExpected} deliveries arrived in 120 s`);
    receiver.reset();
    say(`set up and warmed up (${seconds(started)}): ${warmExpected} deliveries in the warm-up`);
    const health = await autocannon({
      url: `${stack.url}/-/health`,
      connections: 20,
      duration: HEALTH_SECONDS,
    });
    const healthPerSecond = Math.round(health.requests.average);
    say(
      `GET /-/health on this stack: ${healthPerSecond.toLocaleString("en-US")} req/s (${HEALTH_SECONDS} s, 20 connections)`,
    );

    const samples: Sample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(await probe.sample(await receiver.count()));
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })();
    const pids = { ...stack.pids, launcher: stack.launcherPid };
    const cpuBefore = cpuSnapshot(pids);
    const loadStart = Date.now();
    say(
      `load: ${RATE} events/s for ${SECONDS} s, ${GROUPS} groups of ${HOOKS.length} hooks, load average ${os.loadavg()[0]!.toFixed(2)}`,
    );
    const load = await drive(plan({}));
    const committed = await settle(stack, setup.paths, load.calls);
    const expected = load.calls.reduce((n, c) => n + c.matches.length, 0) * HOOKS.length;
    say(`load sent (${seconds(loadStart)}); waiting up to ${DRAIN_SECONDS} s for ${expected} deliveries`);
    await waitUntil(DRAIN_SECONDS * 1000, async () => (await receiver.count()) >= expected);
    // A moment more, so a delivery sent twice right at the end is seen.
    await new Promise((r) => setTimeout(r, 2_000));
    const cpuAfter = cpuSnapshot(pids);
    sampling = false;
    await sampler;
    const receipts = await receiver.receipts();
    const result = reckon(load.calls, receipts, HOOKS);
    const report: HooksReport = {
      rate: RATE,
      seconds: SECONDS,
      hooks: HOOKS.length,
      load,
      committed,
      receipts,
      result,
      samples,
      cpuMsPerDelivery: cpuPerRequest(cpuBefore, cpuAfter, Math.max(1, result.received)),
      healthPerSecond,
    };
    if (!printReport(report)) process.exitCode = 1;
    writeResult({
      bench: "hooks",
      settings: {
        rate: RATE,
        seconds: SECONDS,
        hooks: HOOKS.length,
        groups: GROUPS,
        drainSeconds: DRAIN_SECONDS,
      },
      figures: hooksFigures(report),
    });
  } finally {
    receiver.stop();
    await probe.close();
  }
  say(`\n${seconds(started)} in all`);
}

const started = Date.now();
say(`bench:hooks: ${RATE} events/s for ${SECONDS} s, each to ${HOOKS.length} hooks`);
runBench(
  "bench:hooks",
  {
    CANOPY_PLAN: "ultimate",
    CANOPY_RATE_LIMIT_AUTHENTICATED: UNLIMITED,
    CANOPY_RATE_LIMIT_UNAUTHENTICATED: UNLIMITED,
    ...HOOK_SETTINGS,
  },
  (stack) => main(stack, started),
);
