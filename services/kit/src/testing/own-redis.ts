/**
 * A redis-server of a test's own (its own port, no persistence), for tests that stop Redis: the
 * machine's Redis is shared by every other test run and must never be stopped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accepts, freePort } from "./slapd-process";
import { waitFor } from "./wait-for";

const REDIS_SERVER = process.env.CANOPY_TEST_REDIS_SERVER ?? "redis-server";

export class OwnRedis {
  private process: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) on the same port, empty; nothing to do while it runs. */
  async start() {
    if (this.process && this.process.exitCode === null && this.process.signalCode === null) return;
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    this.process = spawn(REDIS_SERVER, args, { stdio: "ignore" });
    await waitFor(`redis-server on ${this.port}`, () => accepts(this.port), 15_000);
  }

  /** Stops it (SIGTERM) and waits until it is gone. */
  async stop() {
    const proc = this.process;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  }
}
