// A bench's figures in a form a program can read: each bench writes them as JSON to the file named by
// BENCH_RESULT_FILE (set by `npm run bench`, bench/src/all.ts, which gathers them into one report).
// Run alone, without the variable, a bench only prints, as it always did.
import { writeFileSync } from "node:fs";
import type autocannon from "autocannon";

export type Verdict = "ok" | "MISSED";

/** One measured figure, as the report's table shows it. */
export interface Figure {
  /** What was measured: an endpoint and mode, a sync, a process. */
  case: string;
  /** The figure as shown, e.g. "4,961 req/s, p50 5 / p99 12 ms, 0.49× health". */
  figure: string;
  /** The number the target is about, when there is one. */
  value?: number;
  unit?: string;
  /** The target as shown, e.g. "≥ 0.25× health, p99 ≤ 50 ms". */
  target?: string;
  /** Only with a target. */
  verdict?: Verdict;
}

export interface BenchResult {
  bench: string;
  /** The sizes and settings it ran with. */
  settings: Record<string, string | number>;
  figures: Figure[];
  /** Anything else worth keeping whole (e.g. the per-process memory of the idle stack). */
  details?: Record<string, unknown>;
}

export const verdictOf = (ok: boolean): Verdict => (ok ? "ok" : "MISSED");

/** 4961.3 → "4,961"; 0.4912 with `digits` 2 → "0.49". */
export const num = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a";

export const megabytes = (bytes: number) => bytes / 1048576;

/** "4,961 req/s, p50 5 / p99 12 ms" and, when any, "N failed". */
export function loadFigure(r: autocannon.Result): string {
  const failed = r.non2xx + r.errors;
  const base = `${num(r.requests.average)} req/s, p50 ${r.latency.p50} / p99 ${r.latency.p99} ms`;
  return failed ? `${base}, ${num(failed)} failed` : base;
}

/** A process's idle resident memory against a ceiling in MB. */
export function rssFigure(name: string, bytes: number | undefined, limitMb: number): Figure {
  if (bytes === undefined) return { case: `idle RSS ${name}`, figure: "n/a" };
  const mb = megabytes(bytes);
  return {
    case: `idle RSS ${name}`,
    figure: `${num(mb, 1)} MB`,
    value: Number(mb.toFixed(1)),
    unit: "MB",
    target: `≤ ${limitMb} MB`,
    verdict: verdictOf(mb <= limitMb),
  };
}

/** Writes the result where `npm run bench` asked for it; nothing when run alone. */
export function writeResult(result: BenchResult) {
  const file = process.env.BENCH_RESULT_FILE;
  if (file) writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}
