/**
 * A PostgreSQL cluster of a test's own (`initdb` into a temporary directory, trust authentication, a
 * free port, fsync off), for tests that stop or restart the database: the machine's server is shared
 * by every other test run. initdb and the server refuse to run as root, so as root they run as the
 * `postgres` OS user, and the directory is handed to it.
 */
import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./slapd-process";

const BIN = process.env.CANOPY_TEST_PG_BIN ?? "/usr/local/bin";

export class OwnPostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<OwnPostgres> {
    const dir = mkdtempSync(path.join(tmpdir(), "canopy-pg-"));
    const pg = new OwnPostgres(await freePort(), dir);
    try {
      if (process.getuid?.() === 0) {
        const { uid, gid } = postgresUser();
        chownSync(dir, uid, gid);
      }
      pg.run("initdb", ["-D", pg.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
      await pg.start();
    } catch (err) {
      pg.dispose();
      throw err;
    }
    return pg;
  }

  /** A superuser URL to its `postgres` database. */
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get data() {
    return path.join(this.dir, "data");
  }

  private run(command: string, args: string[]) {
    const binary = path.join(BIN, command);
    const [file, argv] =
      process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
    execFileSync(file, argv, { stdio: "pipe", timeout: 60_000 });
  }

  private ctl(action: string, extra: string[] = []) {
    const options = [
      `-p ${this.port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${this.dir}`,
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=400",
    ].join(" ");
    const log = path.join(this.dir, "server.log");
    this.run("pg_ctl", ["-D", this.data, "-l", log, "-o", options, "-w", "-t", "60", ...extra, action]);
  }

  /** Starts the server (again) on the same port and data directory; resolves once it accepts. */
  async start() {
    this.ctl("start");
  }

  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when this resolves. */
  async restart() {
    this.ctl("restart", ["-m", "fast"]);
  }

  async stop() {
    this.ctl("stop", ["-m", "fast"]);
  }

  /** Stops it for good and removes its files. */
  dispose() {
    try {
      this.ctl("stop", ["-m", "immediate"]);
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function postgresUser(): { uid: number; gid: number } {
  const line = execFileSync("getent", ["passwd", "postgres"], { encoding: "utf8" }).trim();
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}
