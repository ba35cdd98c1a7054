import { createLogger, type Logger } from "../logger";

/** Logs nothing: tests that look at log output record it (below). */
export const quietLog: Logger = createLogger("test", "silent");

export interface RecordedLogs {
  log: Logger;
  /** Every line written, as pino wrote it (JSON). */
  readonly lines: string[];
  /** Every line, parsed. */
  records(): Record<string, unknown>[];
  /** All lines as one text, for "this secret never appears" assertions. */
  text(): string;
}

/** A logger (at `level`, default trace) whose lines are kept in memory. */
export function recordingLogger(name = "test", level = "trace"): RecordedLogs {
  const lines: string[] = [];
  const log = createLogger(name, level, { write: (line: string) => void lines.push(line) });
  return {
    log,
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => lines.join(""),
  };
}

/** One more logger writing into the same recording (another process of a test stack). */
export const childLogger = (recorded: RecordedLogs, name: string, level = "trace"): Logger =>
  createLogger(name, level, { write: (line: string) => void recorded.lines.push(line) });
