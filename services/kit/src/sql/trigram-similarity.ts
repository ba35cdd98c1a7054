import type { Pool } from "../db";

/*
 * pg_trgm's similarity() for the lists' `order_by=similarity` (GitLab's Gitlab::SQL::Similarity).
 * The groups service's migration 0006 creates the extension when the migrating role may; where it
 * cannot, the function is missing and the similarity order approximates.
 */

/** pg_trgm's similarity(), schema-qualified, or undefined when the extension is not installed. */
async function findSimilarityFunction(db: Pool): Promise<string | undefined> {
  const { rows } = await db.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`,
  );
  return rows[0] ? `"${rows[0].schema.replace(/"/g, '""')}".similarity` : undefined;
}

const found = new WeakMap<Pool, Promise<string | undefined>>();

/** pg_trgm's similarity(), looked up once per pool (the extension does not come and go). */
export function trigramSimilarityFunction(pool: Pool): Promise<string | undefined> {
  let lookup = found.get(pool);
  if (!lookup) found.set(pool, (lookup = findSimilarityFunction(pool)));
  return lookup;
}
