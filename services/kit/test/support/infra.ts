import { randomBytes } from "node:crypto";
import { createLogger, createPool, migrate, type Pool } from "@canopy/kit";

/** A name no other test (or test run) uses: `kit_test_3f9a1c2b`. Valid as a schema or durable name. */
export const uniqueName = (prefix = "kit_test") => `${prefix}_${randomBytes(4).toString("hex")}`;

/** Logs nothing: tests that need log output capture it themselves. */
export const quietLog = createLogger("kit-test", "silent");

export const databaseUrl = (): string => {
  const url = process.env.CANOPY_DATABASE_URL;
  if (!url) throw new Error("CANOPY_DATABASE_URL is not set: run through jest's global setup");
  return url;
};

export const NATS_URL = process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222";
export const REDIS_URL = process.env.CANOPY_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A pool on a fresh schema that already has the kit's tables (outbox, processed_events). */
export async function freshSchema(
  max = 5,
): Promise<{ pool: Pool; schema: string; drop: () => Promise<void> }> {
  const schema = uniqueName();
  const pool = createPool({ url: databaseUrl(), schema, max });
  await migrate(pool, schema, []);
  return {
    pool,
    schema,
    drop: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T> | T,
  timeoutMs = 5_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** "settled" if `promise` settles within `ms`, else "still pending" (and no timer is left behind). */
export async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<"settled" | "still pending"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"still pending">(
    (resolve) => (timer = setTimeout(() => resolve("still pending"), ms)),
  );
  try {
    return await Promise.race([promise.then(() => "settled" as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
