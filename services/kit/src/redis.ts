// The client alone: the "redis" package wraps it with every Redis Stack module (JSON, search, time
// series, bloom), ~500 command modules Canopy never calls, ~5 MB resident in every process.
// Loaded when a process connects (connectRedis), not with the kit: only the gateway uses Redis, and
// the client's hundreds of command modules added 1-2 s to every service's start on a busy machine
// (the time a killed replica takes to come back).
import type * as RedisModule from "@redis/client";
import type { Logger } from "pino";

/**
 * How long one command may wait for Redis's answer. Every use of Redis in Canopy is a cache, a
 * counter or a session lookup that answers in well under a millisecond; one that has not answered
 * in 3 s comes from a Redis that is paused, swapping or behind a half-open connection, and the
 * caller is better served by its fallback (see the gateway's uses) than by waiting on. Not less: the
 * timer fires before an answer already received is read when the event loop was blocked (a long GC,
 * a CPU-throttled container), and a sign-in would fail for nothing (1 s did, on a loaded machine).
 * A Redis that is down is not waited for at all (`disableOfflineQueue`).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 3_000;

const createRedisClient = (redis: typeof RedisModule, url: string) =>
  redis.createClient({
    url,
    // While the connection is down a command fails at once (ClientOfflineError) instead of waiting
    // in the client's queue until Redis is back: every caller has a fallback for a failed command,
    // and none has one for a request held until its client gives up (the fault suite's Redis-down
    // scenario saw requests hang past 10 s).
    disableOfflineQueue: true,
    commandOptions: { timeout: REDIS_COMMAND_TIMEOUT_MS },
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(retries * 100, 2_000) },
  });

export type RedisClient = ReturnType<typeof createRedisClient>;

/**
 * Connects to Redis; reconnects on its own, and a lost connection is logged, not fatal. While it is
 * lost every command is refused at once: callers fall back (see REDIS_COMMAND_TIMEOUT_MS).
 */
export async function connectRedis(url: string, log: Logger): Promise<RedisClient> {
  const client = createRedisClient(await import("@redis/client"), url);
  let lastError = "";
  client.on("error", (err: Error) => {
    // One line per distinct error, not one per reconnect attempt.
    if (err.message !== lastError) log.warn({ err }, "redis error");
    lastError = err.message;
  });
  client.on("ready", () => {
    if (lastError) log.info("redis connection back");
    lastError = "";
  });
  await client.connect();
  return client;
}

/**
 * Closes the connection: after the commands in flight while Redis answers, at once while it is away
 * (QUIT would wait for a reconnection that closing the client stops, and a shutdown would hang).
 */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.isReady) await client.close();
  else client.destroy();
}
