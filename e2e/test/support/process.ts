// Child processes whose every output line is kept, and the small waits tests need around them.
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import readline from "node:readline";

const STOP_TIMEOUT_MS = 30_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process whose stdout and stderr are split into lines and kept, in arrival order. */
export class Captured {
  readonly lines: string[] = [];
  readonly exited: Promise<Exit>;
  private waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  private exit?: Exit;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    for (const stream of [proc.stdout, proc.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => this.add(line));
    }
    // "close", not "exit": by then every line has been read.
    this.exited = new Promise((resolve) => {
      proc.on("close", (code, signal) => resolve((this.exit ??= { code, signal })));
      proc.on("error", () => resolve((this.exit ??= { code: null, signal: null })));
    });
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  private add(line: string) {
    this.lines.push(line);
    for (const w of [...this.waiters]) {
      if (w.pattern.test(line)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  }

  /** The first line (already printed or still to come) matching `pattern`; fails on exit or timeout. */
  async waitForLine(pattern: RegExp, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((l) => pattern.test(l));
    if (seen) return seen;
    let timer: NodeJS.Timeout | undefined;
    let waiter: { pattern: RegExp; resolve: (line: string) => void } | undefined;
    try {
      return await Promise.race([
        new Promise<string>((resolve) => {
          waiter = { pattern, resolve };
          this.waiters.push(waiter);
        }),
        this.exited.then((exit) => {
          throw new Error(`${this.name} exited (${describeExit(exit)}) before printing ${pattern}`);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- output of ${this.name} ---\n${this.lines.join("\n")}`);
    } finally {
      clearTimeout(timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
    }
  }

  /** Sends `signal` and waits for the exit; SIGKILL when it takes longer than `timeoutMs`. */
  async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = STOP_TIMEOUT_MS): Promise<Exit> {
    if (this.running) this.proc.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
    );
    const exit = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (exit) return exit;
    this.proc.kill("SIGKILL");
    return this.exited;
  }
}

const describeExit = (exit: Exit) => (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`);

/** A port for a process that binds it later: the launcher's own choice (deploy/lib/ports.cjs). */
export const freePort = (
  createRequire(__filename)("../../../deploy/lib/ports.cjs") as { freePort(): Promise<number> }
).freePort;

/** Answers with `status` within `deadlineMs`, polling every 100 ms. */
export async function waitForStatus(url: string, status: number, deadlineMs: number) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const got = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (got === status) return;
    if (Date.now() > deadline) throw new Error(`${url} answered ${got}, not ${status}, for ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
