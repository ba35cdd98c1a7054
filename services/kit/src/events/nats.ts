import { connect, RetentionPolicy, StorageType, type NatsConnection } from "nats";
import type { Logger } from "pino";
import type { EventStream } from "./stream";

export type { NatsConnection };

/** Connects to NATS and makes sure the deployment's event stream exists (idempotent across replicas). */
export async function connectNats(
  url: string,
  log: Logger,
  name: string,
  stream: EventStream,
): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect")
        log.warn({ nats: s.type }, "nats connection changed");
    }
  })();
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(stream.name);
  } catch {
    try {
      await jsm.streams.add({
        name: stream.name,
        subjects: stream.subjects,
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: 7 * 24 * 3600 * 1e9,
        duplicate_window: 2 * 60 * 1e9,
      });
    } catch (err) {
      // Another replica created it between our two calls.
      await jsm.streams.info(stream.name).catch(() => {
        throw err;
      });
    }
  }
  return nc;
}
