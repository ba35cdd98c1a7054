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

/**
 * Seeding on a machine busy with other work: a call answered 503 (a service past its deadline) is
 * made again after a pause that grows (2 s, 4 s, ...: the service is behind, a call at once would
 * queue behind the same work), up to `attempts` times. `call` gets the attempt's number: a write
 * that timed out may still have been made, so a retried write names what it creates anew.
 */
export async function retryUnavailable<T>(call: (attempt: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      if (attempt >= attempts || !/: 503 /.test(String((err as Error)?.message))) throw err;
      await new Promise((r) => setTimeout(r, 2_000 * attempt));
    }
  }
}
