// What bench:groups prints: per dataset size a table of loads and one of CPU per request, and, when
// it measured several sizes, each figure at the largest beside the smallest with the issue's 1.3× rule.
import type { Measured, Mode } from "./groups-load";
import { ratioOf } from "./groups-load";
import { loadCells, say, table } from "./report";
import { loadFigure, num, verdictOf, type Figure } from "./results";

export interface Row extends Measured {
  name: string;
  mode: Mode;
  connections: number;
}

export interface Results {
  /** The dataset's size, in `unit`s (groups unless said). */
  groups: number;
  unit?: string;
  rows: Row[];
  /** Checks made on the way (e.g. an X-Total as expected), for the report. */
  checks?: Figure[];
}

const PROCESSES = ["gateway", "groups", "auth", "launcher", "postgres", "bench", "other"];
/** bench:projects also shows the projects service. */
export const PROJECTS_PROCESSES = [
  "gateway",
  "projects",
  "groups",
  "auth",
  "launcher",
  "postgres",
  "bench",
  "other",
];
/** At the largest size, each figure within this factor of the smallest's. */
const GROWTH_LIMIT = 1.3;
const label = (r: Row) => `${r.name} ${r.mode}${r.connections === 32 ? "" : ` @${r.connections}`}`;

export function printResults(results: Results, processes = PROCESSES) {
  say("");
  table([
    ["endpoint", "req/s", "p50", "p99", "failed", "health req/s", "ratio"],
    ...results.rows.map((r) => [
      label(r),
      ...loadCells(r.result),
      r.health.requests.average.toFixed(0),
      ratioOf(r).toFixed(2),
    ]),
  ]);
  say("");
  table([
    ["CPU ms per request", ...processes],
    ...results.rows.map((r) => [
      label(r),
      ...processes.map((p) => (r.cpu[p] === undefined ? "n/a" : r.cpu[p]!.toFixed(2))),
    ]),
  ]);
}

/**
 * Throughput is compared as the ratio to health in the same run (the machine's speed drifts between
 * cases), latency as p50; a p50 within a millisecond counts as the same (autocannon's resolution).
 */
export function printComparison(small: Results, large: Results) {
  const unit = large.unit ?? "groups";
  say(`\n== ${large.groups} ${unit} beside ${small.groups} (limit ${GROWTH_LIMIT}×)`);
  const rows = [["case", "ratio small", "ratio large", "×", "p50 small", "p50 large", "verdict"]];
  for (const l of large.rows) {
    const s = small.rows.find((r) => label(r) === label(l));
    if (!s) continue;
    const slower = ratioOf(s) / ratioOf(l);
    const p50s = s.result.latency.p50;
    const p50l = l.result.latency.p50;
    const ok = slower <= GROWTH_LIMIT && (p50l <= p50s * GROWTH_LIMIT || p50l - p50s <= 1);
    rows.push([
      label(l),
      ratioOf(s).toFixed(2),
      ratioOf(l).toFixed(2),
      slower.toFixed(2),
      `${p50s} ms`,
      `${p50l} ms`,
      ok ? "ok" : "MISSED",
    ]);
  }
  table(rows);
}

/** What one case must reach, from its issue; none of these: no target. */
export interface RowTarget {
  /** Its req/s at least this share of health's in the same run. */
  ratio?: number;
  p99Ms?: number;
  p50Ms?: number;
}

/** Each measured row as a report figure, checked against its target (failed requests miss it too). */
export function rowFigures(
  results: Results,
  targetOf: (r: Row) => RowTarget | undefined,
  prefix = "",
): Figure[] {
  return results.rows.map((r) => {
    const ratio = ratioOf(r);
    const figure = `${loadFigure(r.result)}, ${num(ratio, 2)}× health`;
    const t = targetOf(r);
    const name = `${prefix}${r.name}, ${r.mode}${r.connections === 32 ? "" : `, ${r.connections} connection(s)`}`;
    if (!t) return { case: name, figure };
    const parts: string[] = [];
    let ok = r.result.non2xx + r.result.errors === 0;
    if (t.ratio !== undefined) {
      parts.push(`≥ ${t.ratio}× health`);
      ok &&= ratio >= t.ratio;
    }
    if (t.p50Ms !== undefined) {
      parts.push(`p50 ≤ ${t.p50Ms} ms`);
      ok &&= r.result.latency.p50 <= t.p50Ms;
    }
    if (t.p99Ms !== undefined) {
      parts.push(`p99 ≤ ${t.p99Ms} ms`);
      ok &&= r.result.latency.p99 <= t.p99Ms;
    }
    return {
      case: name,
      figure,
      value: Number(ratio.toFixed(2)),
      target: parts.join(", "),
      verdict: verdictOf(ok),
    };
  });
}
