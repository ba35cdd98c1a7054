import type { QueryResultRow } from "pg";
import type { Queryable } from "../db";
import { COUNT_CAP } from "../paging";
import { containsPattern } from "../sql/like";

/*
 * What the member lists of a group and of a project (GitLab's MembersFinder, one per source) have in
 * common: the filters on the user, who looks at the list, and how a page and its count are read.
 * Which memberships a list holds (direct, inherited, invited) is each service's own SQL
 * (groups' store/member-lists.ts, projects' store/project-members.ts): a list here is its CTEs and
 * its `FROM` with `b` the chosen memberships, `u` their users and `c` who added them.
 */

/** The filters of GET .../members (GitLab's `query`, `user_ids`, `skip_users`). */
export interface MemberFilter {
  query?: string;
  userIds?: number[];
  skipUsers?: number[];
}

/** Who looks at an `all` list: their id, the lowest visibility they see, whether they manage members. */
export interface MemberListViewer {
  userId: number;
  lowestVisibleLevel: number;
  managesMembers: boolean;
}

/** The filter's conditions on `u` (users) and its values, numbered from `first`. */
export function memberFilterSql(f: MemberFilter, first: number): { where: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const next = (v: unknown) => {
    values.push(v);
    return `$${first + values.length - 1}`;
  };
  if (f.query) {
    const p = next(containsPattern(f.query));
    where.push(`(u.name ILIKE ${p} OR u.username ILIKE ${p})`);
  }
  if (f.userIds?.length) where.push(`u.id = ANY(${next(f.userIds)}::bigint[])`);
  if (f.skipUsers?.length) where.push(`NOT (u.id = ANY(${next(f.skipUsers)}::bigint[]))`);
  return { where: where.length ? `AND ${where.join(" AND ")}` : "", values };
}

/** One member list as SQL: `WITH ...` (or ""), `FROM ... WHERE ...`, and their parameters. */
export interface MemberListSql {
  with: string;
  from: string;
  values: unknown[];
}

/** How a service reads its member lists: the row it selects and the order of a page. */
export interface MemberListReads<Row extends QueryResultRow> {
  /** One page of a list. */
  page(db: Queryable, q: MemberListSql, window: { limit: number; offset: number }): Promise<Row[]>;
  /** One page of a list, and the count of the whole list (counted up to COUNT_CAP + 1). */
  pageAndCount(
    db: Queryable,
    q: MemberListSql,
    window: { limit: number; offset: number },
  ): Promise<{ rows: Row[]; counted: number }>;
}

/** `select` is the SELECT list of a row; `orderBy` the page's order (GitLab's: by membership). */
export function memberListReads<Row extends QueryResultRow>({
  select,
  orderBy,
}: {
  select: string;
  orderBy: string;
}): MemberListReads<Row> {
  const page = async (db: Queryable, q: MemberListSql, window: { limit: number; offset: number }) => {
    const n = q.values.length;
    const { rows } = await db.query<Row>(
      `${q.with} ${select} ${q.from} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...q.values, window.limit, window.offset],
    );
    return rows;
  };
  return {
    page,
    async pageAndCount(db, q, window) {
      const n = q.values.length;
      const [rows, count] = await Promise.all([
        page(db, q, window),
        db.query<{ n: number }>(
          `${q.with} SELECT count(*)::int AS n FROM (SELECT 1 ${q.from} LIMIT $${n + 1}) counted`,
          [...q.values, COUNT_CAP + 1],
        ),
      ]);
      return { rows, counted: count.rows[0]!.n };
    },
  };
}
