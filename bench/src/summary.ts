// `npm run bench`'s report as Markdown, and the README's copy of it: pure functions of the gathered
// results (bench/test/summary.test.ts), so the runner (all.ts) only runs benches and writes files.
import type { BenchResult } from "./results";

/** One bench as `npm run bench` ran it, in a process of its own. */
export interface BenchRun {
  bench: string;
  /** ISO 8601, UTC: when it started (absent in reports written before it was recorded). */
  started?: string;
  /** null when it was killed by a signal. */
  exitCode: number | null;
  signal?: string;
  seconds: number;
  /** The machine's 1-minute load average when it started and when it ended. */
  loadAverage: [number, number];
  /** What it wrote to BENCH_RESULT_FILE; absent when it wrote nothing (it crashed). */
  result?: BenchResult;
  /** Its last output lines when it failed. */
  error?: string;
  /** When it took more than one run (the earlier ones crashed). */
  attempts?: number;
}

export interface Report {
  /** ISO 8601, UTC: when the run started. */
  date: string;
  /** "full": every bench at its default size; "quick": BENCH_QUICK=1's small sizes. */
  mode: "full" | "quick";
  machine: { cpu: string; cores: number; memoryGb: number; os: string };
  node: string;
  /** 1-minute load average at the start and the end of the whole run. */
  loadAverage: [number, number];
  seconds: number;
  runs: BenchRun[];
}

export const BEGIN = "<!-- bench:begin -->";
export const END = "<!-- bench:end -->";

/** A table cell: pipes escaped, lines joined. */
export const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

const row = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;

export function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

const failed = (run: BenchRun) => run.exitCode !== 0 || !run.result;

function status(run: BenchRun): string {
  if (run.exitCode === 0) return run.result ? "0" : "0, no result written";
  return run.signal ? `killed (${run.signal})` : String(run.exitCode);
}

/** The report: a heading line, every figure with its target and verdict, then how each bench ran. */
export function renderMarkdown(report: Report): string {
  const figures = report.runs.flatMap((run) => run.result?.figures ?? []);
  const targets = figures.filter((f) => f.verdict);
  const met = targets.filter((f) => f.verdict === "ok").length;
  const crashed = report.runs.filter(failed);
  const { machine } = report;
  const lines = [
    `Run of ${report.date.slice(0, 16).replace("T", " ")} UTC, ${
      report.mode === "full" ? "every bench at its default size" : "quick mode (BENCH_QUICK=1: small sizes)"
    }, ${duration(report.seconds)} in all. Machine: ${machine.cores} × ${machine.cpu}, ${machine.memoryGb} GB, ` +
      `${machine.os}; Node ${report.node}; load average (1 min) ${report.loadAverage[0].toFixed(2)} at the ` +
      `start, ${report.loadAverage[1].toFixed(2)} at the end.`,
    "",
    ...rerunNote(report),
    `${met} of ${targets.length} targets met` +
      (crashed.length
        ? `; ${crashed.length} bench(es) failed: ${crashed.map((r) => r.bench).join(", ")}.`
        : "."),
    "",
    row(["Bench", "Case", "Figure", "Target", "Verdict"]),
    "|---|---|---|---|---|",
  ];
  for (const run of report.runs) {
    for (const f of run.result?.figures ?? [])
      lines.push(row([run.bench, f.case, f.figure, f.target ?? "", f.verdict ?? ""]));
    if (failed(run))
      lines.push(
        row([run.bench, "the bench itself", run.error?.trim() || "(no output)", "exit 0", "FAILED"]),
      );
  }
  lines.push(
    "",
    row(["Bench", "Settings", "Started (UTC)", "Time", "Load average (1 min), start → end", "Exit"]),
    "|---|---|---|---|---|---|",
  );
  for (const run of report.runs) {
    const settings = Object.entries(run.result?.settings ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    lines.push(
      row([
        run.bench,
        settings,
        run.started?.slice(11, 16) ?? "",
        duration(run.seconds) + (run.attempts ? ` (attempt ${run.attempts}; earlier ones crashed)` : ""),
        `${run.loadAverage[0].toFixed(2)} → ${run.loadAverage[1].toFixed(2)}`,
        status(run),
      ]),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Benches run again after the whole run (BENCH_ONLY with BENCH_UPDATE=1) are named, with when. */
function rerunNote(report: Report): string[] {
  const end = Date.parse(report.date) + report.seconds * 1000;
  const later = report.runs.filter((r) => r.started && Date.parse(r.started) > end);
  if (!later.length) return [];
  const names = later.map((r) => `${r.bench} (${r.started!.slice(0, 16).replace("T", " ")} UTC)`);
  return [`Run again afterwards with \`BENCH_UPDATE=1\`: ${names.join(", ")}.`, ""];
}

/** `readme` with what stands between the markers replaced by `block`; an error if they are missing. */
export function replaceBlock(readme: string, block: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < 0 || end < begin)
    throw new Error(`the README has no ${BEGIN} … ${END} block (in that order) to write the report into`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${block.trimEnd()}\n${readme.slice(end)}`;
}
