import { createHash } from "node:crypto";
import type { Queryable } from "../db";
import { UTC_TODAY } from "./utc-today";
import type { Where } from "./where";

/*
 * The count cache of a service's lists (X-Total): a list's capped count, kept in PostgreSQL under a
 * digest of what the list is, valid while the generations it was counted under are current and only
 * on the UTC day it was counted. Triggers bump the generations in the transaction of every write
 * that can move a count, so a count read here is the count a fresh COUNT would give: exact, on every
 * replica, at once.
 *
 * The tables are the service's own, made by its migration (groups' 0008, projects' 0005):
 * `list_count_generations (scope, shard, generation)`, where scope 0 is what every caller's lists
 * depend on and scope u > 0 is user u's own rows, and a scope's generation is the sum of its shards'
 * (a writer bumps its connection's shard: groups' migration 0016), and `list_counts (key, user_id, <scope 0 column>,
 * user_generation, counted_on, count)`. Only the name of the scope-0 column differs between the
 * services, and migrations already applied are never edited, so each service names it here.
 */

export interface CountKey {
  /** Digest of the list's base set, scope and filters (never its order or page). */
  digest: string;
  /** The caller whose memberships (and stars) the list depends on, 0 for none. */
  userId: number;
}

/** The cache key of a list: `list` is everything that decides which rows are in it. */
export function countKey(list: unknown, userId: number): CountKey {
  return { digest: createHash("sha256").update(JSON.stringify(list)).digest("base64url"), userId };
}

export interface ListCountTables {
  /** The column of `list_counts` that holds scope 0's generation (`groups_generation`, ...). */
  scopeGenerationColumn: string;
  /** Prefixes the names of prepared statements (`groups` gives `groups-list-count-kept`). */
  service: string;
}

/** Reads and keeps the counts of one service's lists (its tables: `ListCountTables`). */
export interface KeptListCounts {
  /** The kept count as a column of another statement (a page comes with it: one round trip). */
  keptCountColumn(w: Where, key: CountKey): string;
  /** The kept count of a list, if it is still valid. */
  keptCount(db: Queryable, key: CountKey): Promise<number | undefined>;
  /**
   * Counts a list and keeps the count, in one statement: the count and the generations it is kept
   * under come from the same snapshot, so a write committing meanwhile leaves an entry that no
   * longer matches (a recount next time), never a stale count that does. `count` is an SQL
   * expression giving the count, with its CTEs in `ctes` and its parameters in `w`.
   */
  countAndKeep(
    db: Queryable,
    key: CountKey,
    count: { w: Where; ctes: string[]; expression: string },
  ): Promise<number>;
}

export function keptListCounts({
  scopeGenerationColumn: scopeColumn,
  service,
}: ListCountTables): KeptListCounts {
  /** The generations an entry must match, as SQL on the user parameter `u`. */
  const generationsSql = (u: string) => `
  (SELECT sum(generation)::bigint FROM list_count_generations WHERE scope = 0) AS ${scopeColumn},
  COALESCE((SELECT sum(generation)::bigint FROM list_count_generations WHERE scope = ${u}::bigint), 0)
    AS user_generation`;

  /** The kept count of a list while it is valid, else NULL, as a scalar SQL subquery. */
  const keptCountSql = (digest: string, user: string) =>
    `(SELECT c.count FROM list_counts c, (SELECT ${generationsSql(user)}) g
     WHERE c.key = ${digest} AND c.user_id = ${user}::bigint AND c.counted_on = ${UTC_TODAY}
       AND c.${scopeColumn} = g.${scopeColumn} AND c.user_generation = g.user_generation)`;

  return {
    keptCountColumn: (w, key) => keptCountSql(w.param(key.digest), w.param(key.userId)),

    async keptCount(db, key) {
      const { rows } = await db.query<{ count: number | null }>({
        name: `${service}-list-count-kept`,
        text: `SELECT ${keptCountSql("$1", "$2")} AS count`,
        values: [key.digest, key.userId],
      });
      return rows[0]?.count ?? undefined;
    },

    async countAndKeep(db, key, count) {
      const { w } = count;
      const digest = w.param(key.digest);
      const user = w.param(key.userId);
      const { rows } = await db.query<{ count: number }>(
        `WITH ${[...count.ctes, `g AS (SELECT ${generationsSql(user)})`].join(",\n")}
     INSERT INTO list_counts AS c (key, user_id, ${scopeColumn}, user_generation, counted_on, count)
     SELECT ${digest}, ${user}::bigint, g.${scopeColumn}, g.user_generation, ${UTC_TODAY}, (${count.expression})
       FROM g
     ON CONFLICT (key) DO UPDATE SET user_id = EXCLUDED.user_id, ${scopeColumn} = EXCLUDED.${scopeColumn},
       user_generation = EXCLUDED.user_generation, counted_on = EXCLUDED.counted_on, count = EXCLUDED.count
     RETURNING c.count`,
        w.params,
      );
      return rows[0]!.count;
    },
  };
}
