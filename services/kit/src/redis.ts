// The client alone: the "redis" package wraps it with every Redis Stack module (JSON, search, time
// series, bloom), ~500 command modules Canopy never calls, ~5 MB resident in every process.
import { createClient } from "@redis/client";
import type { Logger } from "pino";

const createRedisClient = (url: string) =>
  createClient({
    url,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(retries * 100, 2_000) },
  });

export type RedisClient = ReturnType<typeof createRedisClient>;

/** Connects to Redis; reconnects on its own, and a lost connection is logged, not fatal. */
export async function connectRedis(url: string, log: Logger): Promise<RedisClient> {
  const client = createRedisClient(url);
  let lastError = "";
  client.on("error", (err: Error) => {
    // One line per distinct error, not one per reconnect attempt.
    if (err.message !== lastError) log.warn({ err }, "redis error");
    lastError = err.message;
  });
  client.on("ready", () => (lastError = ""));
  await client.connect();
  return client;
}
