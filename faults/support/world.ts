/**
 * The fault suite's world: a PostgreSQL, NATS and Redis of its own (so they can be stopped without
 * touching the machine's shared servers), the whole stack on them through `npm start`'s launcher with
 * two replicas of every service, a webhook receiver, and a tally of every request per scenario.
 */
import { ldapServersEnv, OwnNats, OwnPostgres, OwnRedis, startSlapd, type Slapd } from "@canopy/kit/testing";
import { Client } from "pg";
import { HookReceiver } from "../../e2e/test/support/hook-receiver";
import { startStack, type Stack } from "../../e2e/test/support/stack";

/** Every request of the suite answers within this, or counts as a hang. */
export const DEADLINE_MS = 10_000;

/** A reply body as the scenarios read it: JSON they know the shape of. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Row {
  scenario: string;
  requests: number;
  "5xx": number;
  "HTTP 500": number;
  hangs: number;
  refused: number;
  lost: number;
  doubled: number;
  "recovery (ms)": number;
}

export class World {
  readonly rows: Row[] = [];
  /** Each scenario's 5xx answers and requests without an answer: `503 DELETE /api/v4/...`. */
  readonly failures = new Map<Row, string[]>();
  private current?: Row;
  private constructor(
    readonly pg: OwnPostgres,
    readonly nats: OwnNats,
    readonly redis: OwnRedis,
    readonly slapd: Slapd,
    readonly stack: Stack,
    readonly receiver: HookReceiver,
  ) {}

  static async start(): Promise<World> {
    // What is up so far, stopped again if a later step fails: nothing of it may outlive the run.
    const undo: (() => unknown)[] = [];
    const keep = <T>(thing: T, stop: (t: T) => unknown) => (undo.unshift(() => stop(thing)), thing);
    try {
      const pg = keep(await OwnPostgres.start(), (p) => p.dispose());
      const nats = keep(await OwnNats.start(), (n) => n.dispose());
      const redis = keep(await OwnRedis.start(), (r) => r.stop());
      const slapd = keep(await startSlapd(), (l) => l.close());
      // The stack's launcher inherits these: every service talks to the servers above only.
      process.env.CANOPY_TEST_ADMIN_DATABASE_URL = pg.url;
      process.env.CANOPY_NATS_URL = nats.url;
      process.env.CANOPY_REDIS_URL = redis.url;
      const stack = await startStack({
        env: {
          CANOPY_REPLICAS: "2",
          CANOPY_LOG_LEVEL: "warn",
          // A replica the suite kills is started again by the launcher, as a cluster restarts a pod.
          CANOPY_RESTART_EXITED: "1",
          CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }),
          // Syncs only when asked (the LDAP scenario asks), noticed at once.
          CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0",
          CANOPY_LDAP_SYNC_POLL_MS: "50",
        },
      });
      keep(stack, (s) => s.dispose());
      const receiver = await HookReceiver.start();
      const world = new World(pg, nats, redis, slapd, stack, receiver);
      await world.api("PUT", "/api/v4/application/settings", {
        body: { allow_local_requests_from_web_hooks_and_services: true },
      });
      return world;
    } catch (err) {
      for (const step of undo) await Promise.resolve(step()).catch(() => undefined);
      throw err;
    }
  }

  get url() {
    return this.stack.url;
  }

  /** Starts counting requests for `scenario`; its row is printed at the end. */
  scenario(name: string): Row {
    this.current = {
      scenario: name,
      requests: 0,
      "5xx": 0,
      "HTTP 500": 0,
      hangs: 0,
      refused: 0,
      lost: 0,
      doubled: 0,
      "recovery (ms)": 0,
    };
    this.rows.push(this.current);
    this.failures.set(this.current, []);
    return this.current;
  }

  /** One request through the gateway, as root unless `token`; status 0 is a hang past DEADLINE_MS. */
  async api(
    method: string,
    path: string,
    options: { token?: string; body?: unknown } = {},
  ): Promise<{ status: number; json: Json; ms: number }> {
    const started = Date.now();
    const row = this.current;
    if (row) row.requests++;
    const headers: Record<string, string> = { "PRIVATE-TOKEN": options.token ?? this.stack.rootToken };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    try {
      const res = await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      const text = await res.text();
      if (row && res.status >= 500) {
        row["5xx"]++;
        this.failures.get(row)!.push(`${res.status} ${method} ${path}`);
        console.log(`${res.status} on ${method} ${path}: ${text}`);
      }
      if (row && res.status === 500) row["HTTP 500"]++;
      let json: Json;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, json, ms: Date.now() - started };
    } catch (err) {
      // A timeout is a hang; anything else (connection refused or reset) no answer at all.
      if (row && (err as Error).name === "TimeoutError") row.hangs++;
      else if (row) row.refused++;
      if (row) this.failures.get(row)!.push(`no answer ${method} ${path}`);
      console.log(`${method} ${path} did not answer: ${(err as Error).message}`);
      return { status: 0, json: undefined, ms: Date.now() - started };
    }
  }

  /** A query on the stack's database (every service's schema is in it). */
  async sql<T = Record<string, unknown>>(text: string): Promise<T[]> {
    const url = new URL(this.pg.url);
    url.pathname = `/${this.stack.databaseName}`;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Outbox rows not yet published, per schema that has an outbox. */
  async unpublished(): Promise<Record<string, number>> {
    const schemas = await this.sql<{ table_schema: string }>(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'",
    );
    const out: Record<string, number> = {};
    for (const { table_schema: schema } of schemas) {
      const [row] = await this.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL`,
      );
      out[schema] = row!.n;
    }
    return out;
  }

  printTable() {
    console.log(`Fault suite (two replicas of every service)\n${markdown(this.rows)}`);
  }

  /** The launcher's own lines and every service's warnings and errors: what happened to the stack. */
  printLogs() {
    const quiet = /"level":"(info|debug|trace)"|"msg":"outbox listener lost"/;
    console.log(
      this.stack.launcher.lines
        .filter((l) => !quiet.test(l))
        .slice(-300)
        .join("\n"),
    );
  }

  async dispose() {
    await this.receiver?.stop();
    await this.stack?.dispose().catch((err) => console.log(`stack dispose: ${err}`));
    await this.redis?.stop();
    await this.slapd?.close();
    await this.nats?.dispose();
    this.pg?.dispose();
  }
}

export function markdown(rows: Row[]): string {
  if (rows.length === 0) return "(no scenario ran)";
  const keys = Object.keys(rows[0]!) as (keyof Row)[];
  const lines = [`| ${keys.join(" | ")} |`, `|${keys.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${keys.map((k) => r[k]).join(" | ")} |`);
  return lines.join("\n");
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` is truthy; the time it took. */
export async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number) {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await pause(200);
  }
}
