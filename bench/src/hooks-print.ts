// bench:hooks' printout: the targets as a markdown table (for the README), then how the API calls
// went, where events waited over time (hooks-probe.ts) and the CPU each delivery cost per process.
import type { LoadResult } from "./hooks-load";
import type { Sample } from "./hooks-probe";
import type { Receipt } from "./hooks-receiver";
import { deliveriesPerWindow, quantile, type Reckoning } from "./hooks-report";
import { say, table } from "./report";
import { verdictOf, type Figure } from "./results";

export interface HooksReport {
  rate: number;
  seconds: number;
  hooks: number;
  load: LoadResult;
  /** Calls that failed whose subgroup was created all the same. */
  committed: number;
  receipts: Receipt[];
  result: Reckoning;
  samples: Sample[];
  cpuMsPerDelivery: Record<string, number>;
  /** GET /-/health req/s on the same stack just before the load: how fast this machine is. */
  healthPerSecond: number;
}

const TARGET_P99_MS = 1_000;
const n = (x: number) => Math.round(x).toLocaleString("en-US");
const ms = (x: number) => (Number.isFinite(x) ? `${n(x)} ms` : "n/a");
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

/** Prints the report; true when nothing was lost or doubled. */
export function printReport(r: HooksReport): boolean {
  const { result, load } = r;
  const t0 = load.calls[0]?.due ?? 0;
  const p50 = quantile(result.latencies, 0.5);
  const p99 = quantile(result.latencies, 0.99);
  const max = result.latencies.at(-1) ?? NaN;
  const loadEnd = t0 + r.seconds * 1000;
  const duringLoad = r.receipts.filter((x) => x.at >= t0 && x.at < loadEnd).length / r.seconds;
  const overall = result.received / Math.max(0.001, (result.lastAt - t0) / 1000);
  const failed = load.calls.filter((c) => c.error);
  const loads = r.samples.map((s) => s.load1);
  const load1 = loads.length
    ? `${loads[0]!.toFixed(2)} / ${Math.max(...loads).toFixed(2)} / ${loads.at(-1)!.toFixed(2)}`
    : "n/a";

  say("\n| Measure | Result | Target |\n|---|---|---|");
  const row = (cells: string[]) => say(`| ${cells.join(" | ")} |`);
  row([
    "events sent (API calls)",
    `${n(result.events)} (${n(load.calls.length)}) in ${(load.elapsedMs / 1000).toFixed(1)} s`,
    `${r.rate}/s for ${r.seconds} s`,
  ]);
  row(["deliveries expected / received", `${n(result.expected)} / ${n(result.received)}`, ""]);
  row(["lost", n(result.lost), `0: ${verdict(result.lost === 0)}`]);
  row(["doubled", n(result.doubled), `0: ${verdict(result.doubled === 0)}`]);
  row([
    "end-to-end latency p50 / p99 / max",
    `${ms(p50)} / ${ms(p99)} / ${ms(max)}`,
    `p99 <= ${n(TARGET_P99_MS)} ms: ${verdict(p99 <= TARGET_P99_MS)}`,
  ]);
  row([
    "deliveries/s during the load / to the last delivery",
    `${n(duringLoad)} / ${n(overall)}`,
    `${n(r.rate * r.hooks)}`,
  ]);
  row(["API errors (of which the write committed)", `${n(failed.length)} (${n(r.committed)})`, ""]);
  row(["load average (1 min): start / max / end", load1, ""]);
  row(["GET /-/health before the load (the machine's yardstick)", `${n(r.healthPerSecond)} req/s`, ""]);
  if (result.unexpected) say(`\n${result.unexpected} deliveries matched no call (not counted as received)`);

  const answers = load.calls.map((c) => c.end - c.start).sort((a, b) => a - b);
  const lag = load.calls.map((c) => c.start - c.due).sort((a, b) => a - b);
  say(
    `\nAPI calls: answer p50 ${ms(quantile(answers, 0.5))}, p99 ${ms(quantile(answers, 0.99))}; ` +
      `start behind schedule p99 ${ms(quantile(lag, 0.99))}, max ${ms(lag.at(-1) ?? NaN)}; ` +
      `at most ${load.maxInFlight} waiting at once`,
  );
  for (const c of failed.slice(0, 5)) say(`  ${c.path}: ${c.status} ${c.error}`);

  // Every 5 s: what was sent and received, and the queues at that moment.
  say("\nTimeline (queues: groups outbox, hooks consumer, deliveries table):");
  const per5 = deliveriesPerWindow(r.receipts, t0, 5_000);
  const sent = deliveriesPerWindow(
    load.calls.flatMap((c) => c.matches.map(() => ({ hook: "", key: "", match: "", at: c.start }))),
    t0,
    5_000,
  );
  const rows = [["t", "events/s", "deliveries/s", "outbox", "consumer", "queued", "load"]];
  for (let i = 0; i < Math.max(per5.length, sent.length); i++) {
    const at = t0 + (i + 1) * 5_000;
    const s = r.samples.filter((x) => x.at <= at).at(-1);
    rows.push([
      `${(i + 1) * 5} s`,
      n(sent[i] ?? 0),
      n(per5[i] ?? 0),
      s ? n(s.outbox) : "",
      s ? n(s.consumer) : "",
      s ? n(s.queued) : "",
      s ? s.load1.toFixed(2) : "",
    ]);
  }
  table(rows);

  say("\nCPU ms per delivery:");
  table([["process", "ms"], ...Object.entries(r.cpuMsPerDelivery).map(([name, v]) => [name, v.toFixed(3)])]);
  return result.lost === 0 && result.doubled === 0;
}

/** The report's figures for `npm run bench`'s summary, with the issue's targets. */
export function hooksFigures(r: HooksReport): Figure[] {
  const { result, load } = r;
  const p99 = quantile(result.latencies, 0.99);
  const t0 = load.calls[0]?.due ?? 0;
  const duringLoad = r.receipts.filter((x) => x.at >= t0 && x.at < t0 + r.seconds * 1000).length / r.seconds;
  const failed = load.calls.filter((c) => c.error).length;
  return [
    {
      case: "events sent (API calls), API errors (of which committed)",
      figure: `${n(result.events)} (${n(load.calls.length)}) in ${(load.elapsedMs / 1000).toFixed(1)} s, ${n(failed)} errors (${n(r.committed)})`,
    },
    { case: "deliveries expected / received", figure: `${n(result.expected)} / ${n(result.received)}` },
    { case: "GET /-/health before the load", figure: `${n(r.healthPerSecond)} req/s` },
    {
      case: "lost",
      figure: n(result.lost),
      value: result.lost,
      target: "0",
      verdict: verdictOf(result.lost === 0),
    },
    {
      case: "doubled",
      figure: n(result.doubled),
      value: result.doubled,
      target: "0",
      verdict: verdictOf(result.doubled === 0),
    },
    {
      case: "end-to-end latency p50 / p99 / max",
      figure: `${ms(quantile(result.latencies, 0.5))} / ${ms(p99)} / ${ms(result.latencies.at(-1) ?? NaN)}`,
      value: Number.isFinite(p99) ? Math.round(p99) : undefined,
      unit: "ms",
      target: `p99 ≤ ${n(TARGET_P99_MS)} ms`,
      verdict: verdictOf(p99 <= TARGET_P99_MS),
    },
    {
      case: "deliveries/s during the load",
      figure: n(duringLoad),
      value: Math.round(duringLoad),
      unit: "/s",
    },
  ];
}
