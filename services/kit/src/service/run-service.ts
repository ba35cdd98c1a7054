import type { Logger } from "pino";
import type { BaseConfig } from "../config";
import { createPool, type Pool } from "../db";
import { startDurableConsumer } from "../events/consumer";
import { ConsumerProgress } from "../events/consumer-progress";
import { connectNats, type NatsConnection } from "../events/nats";
import { watchConsumer, watchOutbox } from "../events/lag-metrics";
import { OutboxRelay } from "../events/outbox";
import { eventStreamOf, type EventStream } from "../events/stream";
import { loadCallVerifier } from "../gateway-keys";
import { startGrpcServer } from "../grpc/server";
import { loadGrpcTls } from "../grpc/tls";
import { startHealthServer } from "../health";
import { Lifecycle } from "../lifecycle";
import { createLogger } from "../logger";
import { migrate, readMigrations } from "../migrate";
import { startTelemetry } from "../telemetry";
import type { ServiceDefinition } from "./definition";
import { startTimers } from "./timers";

export interface RunOptions {
  /** Environment to read configuration from (default `process.env`). Tests pass overrides. */
  env?: NodeJS.ProcessEnv;
  /** Logger to use instead of a new one at CANOPY_LOG_LEVEL. Tests pass a recording one. */
  log?: Logger;
  /** Overrides the configured gRPC port (tests use 0: a free one). */
  grpcPort?: number;
  /** Stop on SIGTERM/SIGINT (what `main.ts` wants; tests do not). */
  signals?: boolean;
}

export interface RunningService<C extends BaseConfig, D> {
  name: string;
  config: C;
  deps: D;
  log: Logger;
  pool: Pool;
  nc: NatsConnection;
  stream: EventStream;
  grpcPort: number;
  healthPort: number;
  /** Readiness says no, then everything stops in the reverse order it started. */
  stop(): Promise<void>;
}

/**
 * Starts a service in the one order every service shares: config, logger, telemetry, pool,
 * migrations, NATS, outbox relay, the service's own preparation, consumers, gRPC, timers, health.
 * Each step registers its stop as it starts, so stopping (or a start that fails half way) undoes
 * exactly what was started, newest first: readiness answers 503 before anything else closes.
 */
export async function runService<C extends BaseConfig, D>(
  definition: ServiceDefinition<C, D>,
  options: RunOptions = {},
): Promise<RunningService<C, D>> {
  const { name } = definition;
  const config = definition.loadConfig(options.env ?? process.env);
  const log = options.log ?? createLogger(name, config.CANOPY_LOG_LEVEL);
  const lifecycle = new Lifecycle(log);
  try {
    lifecycle.onStop("telemetry", await startTelemetry(name));
    // Registered early so it runs late: liveness keeps answering while the service drains.
    let closeHealth: () => Promise<void> = async () => undefined;
    lifecycle.onStop("health", () => closeHealth());

    const schema = schemaOf(definition);
    const pool = createPool({ url: config.CANOPY_DATABASE_URL, schema });
    lifecycle.onStop("postgres", () => pool.end());
    const applied = await migrate(pool, schema, await readMigrations(definition.migrations));
    if (applied.length) log.info({ applied }, "migrations applied");

    const stream = eventStreamOf(config);
    const nc = await connectNats(config.CANOPY_NATS_URL, log, `canopy-${name}`, stream);
    lifecycle.onStop("nats", () => nc.drain());
    const relay = new OutboxRelay(pool, nc, stream, log);
    await relay.start();
    lifecycle.onStop("outbox relay", () => relay.stop());
    const unwatchOutbox = watchOutbox(name, pool);
    lifecycle.onStop("outbox lag metric", async () => unwatchOutbox());

    const deps = await definition.deps({ name, config, log, pool, nc, stream });
    await definition.prepare?.(deps);

    const consumers = definition.consumers?.(deps) ?? [];
    // Calls that name the caller's recent writes wait until these consumers have applied them.
    const progress = consumers.length
      ? new ConsumerProgress(await nc.jetstreamManager({ timeout: 1_000 }), stream.name, consumers, log)
      : undefined;
    for (const consumer of consumers) {
      const subscription = await startDurableConsumer({
        ...consumer,
        nc,
        stream,
        pool,
        log,
        applied: () => progress?.nudge(consumer.name),
      });
      lifecycle.onStop(`consumer ${consumer.name}`, () => subscription.stop());
    }
    if (consumers.length) {
      const jsm = await nc.jetstreamManager({ timeout: 1_000 });
      const unwatch = consumers.map((consumer) => watchConsumer(jsm, stream.name, consumer.name));
      lifecycle.onStop("consumer lag metrics", async () => unwatch.forEach((stop) => stop()));
    }

    const grpc = await startGrpcServer({
      services: definition.grpc(deps),
      port: options.grpcPort ?? definition.grpcPort(config),
      host: config.CANOPY_GRPC_HOST,
      verifier: loadCallVerifier(config),
      tls: loadGrpcTls(config),
      log,
      progress,
    });
    lifecycle.onStop("grpc", () => grpc.shutdown());

    lifecycle.onStop("timers", await startTimers(definition.timers?.(deps) ?? [], log));
    const ownStop = definition.stop;
    if (ownStop) lifecycle.onStop(`${name}'s own work`, () => ownStop(deps));
    for (const task of definition.background?.(deps) ?? []) lifecycle.onStop(task.name, await task.start());

    const health = await startHealthServer({
      port: config.CANOPY_HEALTH_PORT,
      host: config.CANOPY_HEALTH_HOST,
      checks: [
        { name: "postgres", check: () => pool.query("SELECT 1") },
        // Writes still answer without NATS (their events wait in the outbox): degraded, not unready.
        { name: "nats", check: () => nc.flush(), degradable: true },
        ...(definition.checks?.(deps) ?? []),
      ],
    });
    closeHealth = health.close;
    lifecycle.onStop("readiness", health.markStopping);

    if (options.signals) lifecycle.installSignalHandlers();
    log.info({ grpc_port: grpc.port, health_port: health.port }, `${name} ready`);
    return {
      name,
      config,
      deps,
      log,
      pool,
      nc,
      stream,
      grpcPort: grpc.port,
      healthPort: health.port,
      stop: () => lifecycle.stop(),
    };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}

const schemaOf = (definition: { name: string; schema?: string }) => definition.schema ?? definition.name;

/**
 * Applies the service's migrations and returns the versions applied, starting nothing else (no NATS,
 * no gRPC, no health port). It is `node <entry> migrate`, which the Helm chart's pre-install and
 * pre-upgrade Job runs: a release's schema changes are in place before any of its pods start, so a
 * long migration never holds up (or races) a rolling update. `runService` still migrates on start,
 * under the same advisory lock, for `npm start` and for a chart installed without the Job.
 */
export async function migrateOnly<C extends BaseConfig, D>(
  definition: ServiceDefinition<C, D>,
  options: Pick<RunOptions, "env" | "log"> = {},
): Promise<string[]> {
  const config = definition.loadConfig(options.env ?? process.env);
  const log = options.log ?? createLogger(definition.name, config.CANOPY_LOG_LEVEL);
  const schema = schemaOf(definition);
  const pool = createPool({ url: config.CANOPY_DATABASE_URL, schema });
  try {
    const applied = await migrate(pool, schema, await readMigrations(definition.migrations));
    log.info({ schema, applied }, applied.length ? "migrations applied" : "migrations up to date");
    return applied;
  } finally {
    await pool.end();
  }
}

/**
 * What a service's `main.ts` calls: runs it until SIGTERM/SIGINT, or with the argument `migrate`
 * only migrates its schema and exits 0. Any other argument is refused rather than ignored (a typo
 * must not start the service). A configuration error is printed as the list it is (for people),
 * anything else with its stack; either way the process exits 1.
 */
export function runMain<C extends BaseConfig, D>(
  definition: ServiceDefinition<C, D>,
  args = process.argv.slice(2),
): void {
  const [command] = args;
  const run =
    command === undefined
      ? runService(definition, { signals: true })
      : command === "migrate"
        ? migrateOnly(definition)
        : Promise.reject(new Error(`unknown command "${command}": expected none, or "migrate"`));
  run.catch((err) => {
    process.stderr.write(`${err?.name === "ConfigError" ? err.message : (err?.stack ?? err)}\n`);
    process.exit(1);
  });
}
