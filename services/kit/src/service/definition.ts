import type { Logger } from "pino";
import type { BaseConfig } from "../config";
import type { Pool } from "../db";
import type { DurableConsumerOptions } from "../events/consumer";
import type { NatsConnection } from "../events/nats";
import type { EventStream } from "../events/stream";
import type { ServiceBinding } from "../grpc/server";
import type { ReadinessCheck } from "../health";
import type { Timer } from "./timers";

/** What the kit has built for a service by the time its own parts are asked for. */
export interface ServiceContext<C extends BaseConfig> {
  name: string;
  config: C;
  log: Logger;
  pool: Pool;
  nc: NatsConnection;
  /** The deployment's event stream (CANOPY_EVENT_STREAM), for broadcast consumers. */
  stream: EventStream;
}

/** A durable JetStream consumer of the service; the kit supplies the connection, stream, pool and logger. */
export type ConsumerDefinition = Omit<DurableConsumerOptions, "nc" | "stream" | "pool" | "log" | "applied">;

/**
 * Everything that makes one service different from another. `runService` owns the rest: the order
 * things start and stop in, health, telemetry, migrations, the outbox relay.
 *
 * `D` is the service's own dependencies object (commands and finders take it first); `deps` builds
 * it from the kit's context, and every later part receives it.
 */
export interface ServiceDefinition<C extends BaseConfig, D> {
  /** Names the logger, telemetry, NATS connection and (unless `schema` says otherwise) the schema. */
  name: string;
  schema?: string;
  /** Directory of the service's SQL migrations. */
  migrations: string;
  loadConfig: (env: NodeJS.ProcessEnv) => C;
  grpcPort: (config: C) => number;
  deps: (context: ServiceContext<C>) => Promise<D> | D;
  /** Runs once after the outbox relay starts and before anything is served (e.g. bootstrap data). */
  prepare?: (deps: D) => Promise<void>;
  grpc: (deps: D) => ServiceBinding[];
  consumers?: (deps: D) => ConsumerDefinition[];
  timers?: (deps: D) => Timer[];
  /**
   * Runs early when the service stops (once readiness says no), while the database, NATS and the
   * outbox relay are still up and before timers and gRPC stop:
   * for work of the service's own that must finish (or be abandoned cleanly) before they go.
   */
  stop?: (deps: D) => Promise<void>;
  /**
   * Long-running loops (a delivery worker): each is started after the timers and stopped, awaited,
   * before them. Like timers they run on every replica, so they coordinate through PostgreSQL.
   */
  background?: (deps: D) => BackgroundTask[];
  /** Readiness checks besides PostgreSQL and NATS, which every service has. */
  checks?: (deps: D) => ReadinessCheck[];
}

/** A loop the service runs while it is up; `start` returns how to stop it (resolving once it has). */
export interface BackgroundTask {
  name: string;
  start: () => Promise<() => Promise<void>>;
}

/** Keeps the config and deps types of a definition tied together at the place it is written. */
export const defineService = <C extends BaseConfig, D>(definition: ServiceDefinition<C, D>) => definition;
