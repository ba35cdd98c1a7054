import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Pool } from "pg";
import { withAdvisoryLock } from "./db";

export interface Migration {
  version: string;
  sql: string;
}

/**
 * Tables every service schema has, owned by the kit: the transactional outbox and the record of
 * events a consumer has handled (for idempotent handlers). Applied before the service's own files.
 */
const KIT_MIGRATIONS: Migration[] = [
  {
    version: "0000_kit_outbox",
    sql: `
      CREATE TABLE outbox (
        seq          bigserial PRIMARY KEY,
        id           uuid NOT NULL UNIQUE,
        subject      text NOT NULL,
        envelope     bytea NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      );
      CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;
      CREATE TABLE processed_events (
        consumer     text NOT NULL,
        event_id     uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );`,
  },
  {
    // Where the relay published each event in the stream (events/positions.ts); null before this.
    version: "0000_kit_outbox_stream_seq",
    sql: `ALTER TABLE outbox ADD COLUMN stream_seq bigint;`,
  },
];

/** Reads `NNNN_name.sql` files, in name order. */
export async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  return Promise.all(
    files.map(async (f) => ({
      version: f.replace(/\.sql$/, ""),
      sql: await readFile(path.join(dir, f), "utf8"),
    })),
  );
}

/**
 * Forward-only migrations for one service schema. Runs under a PostgreSQL advisory lock so that
 * replicas starting together apply each migration exactly once; each file runs in its own
 * transaction together with its bookkeeping row. Returns the versions it applied.
 */
export async function migrate(pool: Pool, schema: string, migrations: Migration[]): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  return withAdvisoryLock(pool, `canopy:migrate:${schema}`, async (client) => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`SET search_path TO ${schema}, public`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: string }>("SELECT version FROM schema_migrations");
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const m of [...KIT_MIGRATIONS, ...migrations]) {
      if (done.has(m.version)) continue;
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [m.version]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${schema}/${m.version} failed: ${(err as Error).message}`);
      }
      applied.push(m.version);
    }
    await client.query("RESET search_path");
    return applied;
  });
}
