// What a process costs, read from /proc (Linux): resident memory, its peak, and CPU time used.
import { readFileSync } from "node:fs";

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node runs on

export interface ProcessSample {
  /** VmRSS, bytes. */
  rss: number;
  /** VmHWM: the highest VmRSS since the process started, bytes. */
  peakRss: number;
  /** User plus system CPU time since the process started, seconds. */
  cpuSeconds: number;
}

export function sampleProcess(pid: number): ProcessSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    // Fields after the command name (which may hold spaces), so split after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return {
      rss: kb("VmRSS") * 1024,
      peakRss: kb("VmHWM") * 1024,
      cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

/** Busy CPU time of the whole machine since boot, seconds (every core), from /proc/stat. */
export function machineBusySeconds(): number | undefined {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cpu;
    return (
      ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) /
      CLOCK_TICKS_PER_SECOND
    );
  } catch {
    return undefined;
  }
}

/** process_resident_memory_bytes from a service's /metrics, for when /proc is not there. */
export async function scrapeResidentBytes(healthPort: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    const value = /^process_resident_memory_bytes (\S+)$/m.exec(await res.text())?.[1];
    return value ? Number(value) : undefined;
  } catch {
    return undefined;
  }
}
