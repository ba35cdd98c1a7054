/**
 * A checksum of every row of every table in every service schema of a test database, to assert that
 * a run of requests changed nothing (api-property-fuzz.test.ts). Tables are listed from the catalog,
 * so a table added by a migration is covered without touching this file. Each table is hashed over
 * its rows as JSON, sorted, so the physical order (ctid, vacuum) plays no part.
 */
import type { Pool } from "@canopy/kit";

export interface Ignored {
  /** Tables left out whole, as `schema.table`, each with the reason. */
  tables: Record<string, string>;
  /** Columns left out of a table's rows, by `schema.table`, with the reason. */
  columns: Record<string, { columns: string[]; why: string }>;
}

/** `schema.table` -> md5 of its rows (with `ignored` left out). */
export async function tableChecksums(db: Pool, ignored: Ignored): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ schema: string; name: string }>(
    `SELECT schemaname AS schema, tablename AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  const out: Record<string, string> = {};
  for (const { schema, name } of tables) {
    const key = `${schema}.${name}`;
    if (key in ignored.tables) continue;
    const drop = (ignored.columns[key]?.columns ?? []).map((c) => ` - '${c}'`).join("");
    const id = `"${schema.replace(/"/g, '""')}"."${name.replace(/"/g, '""')}"`;
    const { rows } = await db.query<{ sum: string }>(
      `SELECT count(*) || ':' || coalesce(md5(string_agg(r, '|' ORDER BY r)), '') AS sum
         FROM (SELECT (to_jsonb(t)${drop})::text AS r FROM ${id} t) rows`,
    );
    out[key] = rows[0]!.sum;
  }
  return out;
}

/**
 * Checksums once the database has gone quiet: what the set-up wrote is still being copied between
 * services by event consumers for a moment, so two readings a beat apart must agree first.
 */
export async function settledChecksums(
  db: Pool,
  ignored: Ignored,
  { pauseMs = 750, timeoutMs = 20_000 } = {},
): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  let last = await tableChecksums(db, ignored);
  for (;;) {
    await new Promise((r) => setTimeout(r, pauseMs));
    const now = await tableChecksums(db, ignored);
    if (JSON.stringify(now) === JSON.stringify(last) || Date.now() > deadline) return now;
    last = now;
  }
}

/**
 * What reads may change, each with why; everything else in the database must stay as it was. The
 * outboxes and processed_events tables are checked too: a refused request publishes nothing.
 */
export const WHAT_READS_CHANGE: Ignored = {
  tables: {
    // Caches of the lists' X-Total, written by the reads that count them (their migrations 0008 and
    // 0005). The generations that invalidate them (list_count_generations) move only on writes: kept.
    "groups.list_counts": "a read-side cache of list counts, filled by GET lists",
    "projects.list_counts": "a read-side cache of list counts, filled by GET lists",
  },
  columns: {
    "auth.personal_access_tokens": {
      columns: ["last_used_at"],
      why: "authenticating with a token records its use (at most once a minute), as GitLab does: reads too",
    },
    "auth.users": {
      columns: ["last_activity_on"],
      why: "a signed-in request records the day of the user's activity (once a day), as GitLab does: reads too",
    },
  },
};
