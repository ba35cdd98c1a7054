import { connect } from "nats";
import { Client } from "pg";
import { createPool, type Pool } from "../db";
import { migrate } from "../migrate";
import { unique } from "./names";

/** The run's throwaway database, created by jest's global setup. */
export function testDatabaseUrl(): string {
  const url = process.env.CANOPY_DATABASE_URL;
  if (!url) throw new Error("CANOPY_DATABASE_URL is not set: run through jest's global setup");
  return url;
}

export interface ThrowawaySchema {
  pool: Pool;
  schema: string;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A pool on a schema of its own that already has the kit's tables (outbox, processed_events). */
export async function throwawaySchema(
  options: { prefix?: string; max?: number } = {},
): Promise<ThrowawaySchema> {
  const schema = unique(options.prefix ?? "test_");
  const pool = createPool({ url: testDatabaseUrl(), schema, max: options.max ?? 5 });
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

export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** What a service started on it needs: the database, its own event stream and settings bucket. */
  env: { CANOPY_DATABASE_URL: string; CANOPY_EVENT_STREAM: string; CANOPY_SETTINGS_BUCKET: string };
  /** Drops the database and deletes its event stream and settings bucket. */
  drop(): Promise<void>;
}

/**
 * A database of its own, for tests of what a service does on an empty one (migrations, bootstrap,
 * backfills). It gets its own event stream and settings bucket too, as a deployment does: its ids
 * start again from 1, and its events and settings must not reach the services of the run's database.
 */
export async function throwawayDatabase(prefix = "canopy_test_db_"): Promise<ThrowawayDatabase> {
  const adminUrl =
    process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = unique(prefix).toLowerCase();
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const stream = name.toUpperCase();
  // A KV bucket is the stream KV_<bucket>.
  const bucketStream = `KV_${name}`;
  return {
    name,
    url,
    env: { CANOPY_DATABASE_URL: url, CANOPY_EVENT_STREAM: stream, CANOPY_SETTINGS_BUCKET: name },
    drop: async () => {
      const dropper = new Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => dropper.end());
      const nc = await connect({
        servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(","),
      });
      const jsm = await nc.jetstreamManager();
      for (const s of [stream, bucketStream]) await jsm.streams.delete(s).catch(() => undefined);
      await nc.close();
    },
  };
}
