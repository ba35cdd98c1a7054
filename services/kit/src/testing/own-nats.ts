/**
 * A nats-server of a test's own (JetStream, its own port and store directory), for tests that stop
 * the broker: the machine's NATS is shared by every other test run and must never be stopped. The
 * store survives `stop()` and `start()`, as a restarted broker's does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { accepts, freePort } from "./slapd-process";
import { waitFor } from "./wait-for";

const NATS_SERVER = process.env.CANOPY_TEST_NATS_SERVER ?? "nats-server";

export class OwnNats {
  private process: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  static async start(): Promise<OwnNats> {
    const nats = new OwnNats(await freePort(), mkdtempSync(path.join(tmpdir(), "canopy-nats-")));
    try {
      await nats.start();
    } catch (err) {
      await nats.dispose();
      throw err;
    }
    return nats;
  }

  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) on the same port and store. */
  async start() {
    const args = ["-js", "-a", "127.0.0.1", "-p", String(this.port), "-sd", this.storeDir];
    this.process = spawn(NATS_SERVER, args, { stdio: "ignore" });
    await waitFor(`nats-server on ${this.port}`, () => accepts(this.port), 15_000);
  }

  /** Stops it as an operator would (SIGTERM) and waits until it is gone. */
  async stop() {
    const proc = this.process;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  }

  /** Stops it for good and removes its store. */
  async dispose() {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
