// One measured case of bench:groups: a load of one request beside GET /-/health, with the CPU each
// process spent per request. "cached" repeats the same request (what the gateway's answer cache
// serves); "uncached" makes every request different by a parameter the API ignores, so each one goes
// through gRPC to the groups service and PostgreSQL, as the first read after any write does.
import autocannon from "autocannon";
import { cpuPerRequest, cpuSnapshot } from "./cpu";

export type Mode = "cached" | "uncached";

export interface Measured {
  result: autocannon.Result;
  health: autocannon.Result;
  cpu: Record<string, number>;
}

export interface LoadOptions {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** Every process whose CPU is counted (PostgreSQL backends as "postgres <pid>"). */
  pids: () => Promise<Record<string, number | undefined>>;
  /** Rounds of (case, health) per case; the round with the median ratio is kept (BENCH_ROUNDS). */
  rounds?: number;
}

export function load(
  url: string,
  headers: Record<string, string>,
  duration: number,
  connections: number,
  mode: Mode = "cached",
) {
  if (mode === "cached") return autocannon({ url, connections, duration, headers });
  const { origin, pathname, search } = new URL(url);
  const base = `${pathname}${search}${search ? "&" : "?"}bench_nonce=`;
  let n = 0;
  return autocannon({
    url: origin,
    connections,
    duration,
    headers,
    requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: `${base}${n++}` }) }],
  });
}

/**
 * The case under load, then health alone for as long, `o.rounds` times; the round with the median
 * ratio stands for the case (one round is at the mercy of whatever else the machine did then).
 */
export async function measure(
  url: string,
  headers: Record<string, string>,
  mode: Mode,
  o: LoadOptions,
): Promise<Measured> {
  const rounds: Measured[] = [];
  for (let i = 0; i < Math.max(o.rounds ?? 1, 1); i++) rounds.push(await measureOnce(url, headers, mode, o));
  rounds.sort((a, b) => ratioOf(a) - ratioOf(b));
  return rounds[Math.floor(rounds.length / 2)]!;
}

/** The case under load, then health alone for as long, with CPU per request sampled around the case. */
async function measureOnce(
  url: string,
  headers: Record<string, string>,
  mode: Mode,
  o: LoadOptions,
): Promise<Measured> {
  if (o.warmupSeconds > 0) await load(url, headers, o.warmupSeconds, o.connections, mode);
  const running = load(url, headers, o.seconds, o.connections, mode);
  // The backends as they are once the load runs (the pools keep theirs), sampled before and after.
  await new Promise((r) => setTimeout(r, 200));
  const these = await o.pids();
  const before = cpuSnapshot(these);
  const result = await running;
  const after = cpuSnapshot(these);
  const health = await load(`${new URL(url).origin}/-/health`, {}, o.seconds, o.connections);
  // Requests in the 0.2 s before the first snapshot are not in its CPU.
  const cpu = cpuPerRequest(before, after, result.requests.total - result.requests.average * 0.2);
  return { result, health, cpu };
}

/** The load's throughput as a share of health's in the same run. */
export const ratioOf = (m: Measured) => m.result.requests.average / m.health.requests.average;
