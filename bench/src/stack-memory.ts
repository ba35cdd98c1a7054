// Where a running stack's memory is, from /proc (Linux): every process under the launcher, named
// by what it runs, with its resident memory split the ways that tell what it is.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { SERVICES } from "./manifest";

export interface ProcessMemory {
  name: string;
  pid: number;
  /** VmRSS: what the ≤ 600 MB target adds up, bytes. */
  rss: number;
  /** RssAnon: the process's own memory (V8 heaps, native allocations), bytes. */
  anon: number;
  /** RssFile: mapped files, mostly the node binary's code, which every node process shares, bytes. */
  file: number;
  /** Pss: RSS with each shared page divided among the processes sharing it, bytes (undefined if unreadable). */
  pss?: number;
}

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** `pid` and every process below it, parents first. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const parent = out[i]!;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      continue; // gone meanwhile
    }
    for (const task of tasks) {
      const children = read(`/proc/${parent}/task/${task}/children`) ?? "";
      for (const child of children.trim().split(/\s+/).filter(Boolean)) out.push(Number(child));
    }
  }
  return out;
}

/** A kB field of /proc/<pid>/status or smaps_rollup, in bytes. */
export function kbField(text: string, field: string): number | undefined {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/**
 * What a command line runs: a service of services.json (by its entry), the launcher, or the
 * program's base name. Arguments are NUL-separated, as in /proc/<pid>/cmdline.
 */
export function nameOf(cmdline: string): string {
  const args = cmdline.split("\0").filter(Boolean);
  const service = SERVICES.find((s) => args.some((a) => a.endsWith(s.entry)));
  if (service) return service.name;
  if (args.some((a) => a.endsWith("deploy/start.mjs"))) return "launcher";
  return path.basename(args[0] ?? "?");
}

export function processMemory(pid: number, name: string): ProcessMemory | undefined {
  const status = read(`/proc/${pid}/status`);
  const rss = status === undefined ? undefined : kbField(status, "VmRSS");
  if (status === undefined || rss === undefined) return undefined;
  const rollup = read(`/proc/${pid}/smaps_rollup`);
  return {
    name,
    pid,
    rss,
    anon: kbField(status, "RssAnon") ?? 0,
    file: kbField(status, "RssFile") ?? 0,
    pss: rollup ? kbField(rollup, "Pss") : undefined,
  };
}

/** Every process of the stack under `launcherPid`; a service's replicas numbered "auth#1", "auth#2". */
export function stackMemory(launcherPid: number): ProcessMemory[] {
  const found = processTree(launcherPid)
    .map((pid) => ({ pid, name: nameOf(read(`/proc/${pid}/cmdline`) ?? "") }))
    .map(({ pid, name }) => processMemory(pid, name))
    .filter((p): p is ProcessMemory => p !== undefined);
  const count = new Map<string, number>();
  for (const p of found) count.set(p.name, (count.get(p.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const p of found.sort((a, b) => a.pid - b.pid)) {
    if (count.get(p.name)! < 2) continue;
    seen.set(p.name, (seen.get(p.name) ?? 0) + 1);
    p.name = `${p.name}#${seen.get(p.name)}`;
  }
  return found;
}
