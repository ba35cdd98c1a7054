// Where a load's CPU went: each of the stack's processes, the bench itself, and the rest of the
// machine (PostgreSQL, Redis, NATS, other users of the machine), from /proc.
import { machineBusySeconds, sampleProcess } from "./proc";

export interface CpuSnapshot {
  at: number;
  /** CPU seconds used so far, per process name. */
  processes: Record<string, number | undefined>;
  bench: number;
  machine?: number;
}

export function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const processes: Record<string, number | undefined> = {};
  for (const [name, pid] of Object.entries(pids))
    processes[name] = pid ? sampleProcess(pid)?.cpuSeconds : undefined;
  const own = process.cpuUsage();
  return { at: Date.now(), processes, bench: (own.user + own.system) / 1e6, machine: machineBusySeconds() };
}

/**
 * CPU milliseconds per request between two snapshots, per process (names "x 1", "x 2" add up as
 * "x"), plus `bench` and `other` (the machine's busy time none of them used: other users of the
 * machine, PostgreSQL's own background work, Redis, NATS).
 */
export function cpuPerRequest(a: CpuSnapshot, b: CpuSnapshot, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  let named = 0;
  for (const name of Object.keys(b.processes)) {
    const x = a.processes[name];
    const y = b.processes[name];
    if (x === undefined || y === undefined) continue;
    // "postgres 1234": every backend adds up under "postgres".
    const group = name.split(" ")[0]!;
    out[group] = (out[group] ?? 0) + ((y - x) * 1000) / requests;
    named += y - x;
  }
  out.bench = ((b.bench - a.bench) * 1000) / requests;
  if (a.machine !== undefined && b.machine !== undefined)
    out.other = (Math.max(0, b.machine - a.machine - named - (b.bench - a.bench)) * 1000) / requests;
  return out;
}
