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
