// Small helpers for a benchmark's settings and printout.
import type autocannon from "autocannon";

export const say = (text: string) => process.stdout.write(`${text}\n`);

/** A whole, non-negative number from the environment, or `fallback`. */
export function intFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

/** Rows of cells, the first row a header; the first column left-aligned, the rest right-aligned. */
export function table(rows: string[][]) {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const [i, row] of rows.entries()) {
    say(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
    if (i === 0) say(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

/** The columns every load result is shown with: req/s, p50, p99, failed. */
export const loadCells = (r: autocannon.Result) => [
  r.requests.average.toFixed(0),
  `${r.latency.p50} ms`,
  `${r.latency.p99} ms`,
  String(r.non2xx + r.errors),
];

export const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
