import type { Queryable } from "@canopy/kit";

/**
 * pg_trgm's similarity(), schema-qualified, or undefined when the extension is not installed (the
 * groups service's migration creates it when its role may; the similarity order then approximates).
 */
export async function similarityFunction(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm'`,
  );
  return rows[0] ? `"${rows[0].schema.replace(/"/g, '""')}".similarity` : undefined;
}
