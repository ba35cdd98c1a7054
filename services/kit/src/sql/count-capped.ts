import type { Queryable } from "../db";
import { COUNT_CAP } from "../paging";

/**
 * Counts the rows of `select` but stops at `cap + 1`, so counting a huge table costs no more than the
 * cap (GitLab omits X-Total past 10,000; see `pageInfo`).
 */
export async function countCapped(db: Queryable, select: string, params: unknown[], cap = COUNT_CAP) {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM (${select} LIMIT ${Number(cap) + 1}) capped`,
    params,
  );
  return rows[0]!.n;
}
