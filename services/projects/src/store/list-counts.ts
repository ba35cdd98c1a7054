import { createHash } from "node:crypto";
import type { Queryable, Where } from "@canopy/kit";
import { UTC_TODAY } from "./access";

/*
 * The count cache of the project lists (migration 0005; the groups service's list_counts, the same
 * way): a list's capped count, kept in PostgreSQL under a digest of what the list is, valid while
 * the generations it was counted under are current and only on the UTC day it was counted.
 * Triggers bump the generations in the transaction of every write that can move a count, so a
 * count read here is the count a fresh COUNT would give: exact, on every replica, at once.
 */

export interface CountKey {
  /** Digest of the list's filters (never its order or page). */
  digest: string;
  /** The caller whose memberships and stars the list depends on, 0 for anonymous callers. */
  userId: number;
}

/** The cache key of a list: `list` is everything that decides which rows are in it. */
export function countKey(list: unknown, userId: number): CountKey {
  return { digest: createHash("sha256").update(JSON.stringify(list)).digest("base64url"), userId };
}

/** The generations an entry must match, as SQL on the user parameter `u`. */
const generationsSql = (u: string) => `
  (SELECT generation FROM list_count_generations WHERE scope = 0) AS projects_generation,
  COALESCE((SELECT generation FROM list_count_generations WHERE scope = ${u}::bigint), 0) AS user_generation`;

/** The kept count of a list while it is valid, else NULL, as a scalar SQL subquery. */
const keptCountSql = (digest: string, user: string) =>
  `(SELECT c.count FROM list_counts c, (SELECT ${generationsSql(user)}) g
     WHERE c.key = ${digest} AND c.user_id = ${user}::bigint AND c.counted_on = ${UTC_TODAY}
       AND c.projects_generation = g.projects_generation AND c.user_generation = g.user_generation)`;

/** The kept count as a column of another statement (a page comes with it: one round trip). */
export const keptCountColumn = (w: Where, key: CountKey) =>
  keptCountSql(w.param(key.digest), w.param(key.userId));

/**
 * Counts a list and keeps the count, in one statement: the count and the generations it is kept
 * under come from the same snapshot, so a write committing meanwhile leaves an entry that no longer
 * matches (a recount next time), never a stale count that does. `count` is an SQL expression giving
 * the count, with its CTEs (`WITH ...` or "") in `ctes` and its parameters in `w`.
 */
export async function countAndKeep(
  db: Queryable,
  key: CountKey,
  count: { w: Where; ctes: string[]; expression: string },
): Promise<number> {
  const { w } = count;
  const digest = w.param(key.digest);
  const user = w.param(key.userId);
  const { rows } = await db.query<{ count: number }>(
    `WITH ${[...count.ctes, `g AS (SELECT ${generationsSql(user)})`].join(",\n")}
     INSERT INTO list_counts AS c (key, user_id, projects_generation, user_generation, counted_on, count)
     SELECT ${digest}, ${user}::bigint, g.projects_generation, g.user_generation, ${UTC_TODAY}, (${count.expression})
       FROM g
     ON CONFLICT (key) DO UPDATE SET user_id = EXCLUDED.user_id, projects_generation = EXCLUDED.projects_generation,
       user_generation = EXCLUDED.user_generation, counted_on = EXCLUDED.counted_on, count = EXCLUDED.count
     RETURNING c.count`,
    w.params,
  );
  return rows[0]!.count;
}
