import { createHash } from "node:crypto";
import { COUNT_CAP, countKey, type Queryable, type Where } from "@canopy/kit";
import type { SortKey } from "../domain/list-order";
import { groupListWhere, type GroupListQuery, type GroupListWhere } from "./group-list-where";
import { countAndKeep, keptCount, keptCountColumn } from "./list-counts";
import { NAMESPACE_COLUMNS, type NamespaceRow } from "./namespaces";

/*
 * One page of a group list and its count, each one statement over the rows group-list-where.ts
 * selects: ordered (keyset or offset), prepared for the common shapes, counted up to the cap.
 */

export type ListedGroupRow = NamespaceRow & {
  sort_score: number | null;
  /** The list's kept count when asked for and still valid (store/list-counts.ts), else null. */
  kept_count: number | null;
};

const keyExpr = (key: SortKey, score: string | undefined) =>
  key.column === "score" ? score! : key.column === "parent" ? "COALESCE(n.parent_id, 0)" : `n.${key.column}`;
const keyCast = (key: SortKey) =>
  key.column === "score" ? "float8" : key.column === "name" || key.column === "path" ? "text" : "bigint";

/** Rows strictly after `values` in the order: k1 >= v1 AND (k1 > v1 OR (k2 ... )). */
function afterSql(w: Where, keys: SortKey[], values: unknown[], score: string | undefined): string {
  const at = (i: number): string => {
    const key = keys[i]!;
    const expr = keyExpr(key, score);
    const v = `${w.param(values[i])}::${keyCast(key)}`;
    const op = key.desc ? "<" : ">";
    if (i === keys.length - 1) return `${expr} ${op} ${v}`;
    return `${expr} ${op}= ${v} AND (${expr} ${op} ${v} OR (${at(i + 1)}))`;
  };
  return at(0);
}

/**
 * One page of the list: `after` (keyset) or `offset`, at most `limit` rows; with `keptCount`, each
 * row also carries the list's kept count (one round trip for a page and its X-Total).
 */
export async function listGroupRows(
  db: Queryable,
  q: GroupListQuery,
  window: { limit: number; offset: number; after?: unknown[]; keptCount?: boolean },
): Promise<ListedGroupRow[]> {
  const b = groupListWhere(q);
  const keys = q.order.keys;
  const where = window.after ? `${b.where} AND (${afterSql(b.w, keys, window.after, b.score)})` : b.where;
  const order = keys.map((k) => `${keyExpr(k, b.score)} ${k.desc ? "DESC" : "ASC"}`).join(", ");
  const kept = window.keptCount ? keptCountColumn(b.w, countKeyOf(q)) : "NULL::int";
  const text = `${b.with}
     SELECT ${NAMESPACE_COLUMNS}, ${b.score ?? "NULL::float8"} AS sort_score, ${kept} AS kept_count
       FROM namespaces n ${where}
      ORDER BY ${order}
      LIMIT ${Number(window.limit)} OFFSET ${Number(window.offset)}`;
  // Literals, not parameters: a generic plan does not know them and may sort the whole set. Deep
  // offsets (rarely asked twice) stay unprepared.
  const named = window.offset <= DEEPEST_PREPARED_OFFSET ? preparedName(text) : {};
  const { rows } = await db.query<ListedGroupRow>({ ...named, text, values: b.w.params });
  return rows;
}

/**
 * A prepared statement's name for the common list shapes, so PostgreSQL plans each shape once per
 * connection rather than on every request (planning these statements costs more than running them).
 * Texts that vary without bound (a search of many words, many custom attributes) stay unnamed.
 */
const DEEPEST_PREPARED_OFFSET = 500;

function preparedName(text: string): { name?: string } {
  if (text.length > 6_000) return {};
  return { name: `groups-list-${createHash("sha1").update(text).digest("base64url").slice(0, 20)}` };
}

/** What decides which rows a list holds (its order and page do not), and whose memberships count. */
function countKeyOf(q: GroupListQuery) {
  const userId = q.base.kind === "all" || q.base.kind === "none" ? 0 : q.base.userId;
  const skipIds = [...new Set(q.skipIds.map(Number))].sort((a, b) => a - b);
  const { base, scope, visibilityLevel, customAttributes, search, searchFullPath } = q;
  return countKey(
    { base, scope, skipIds, visibilityLevel, customAttributes, search, searchFullPath },
    userId,
  );
}

/** The list's count as one SQL expression, capped (COUNT_CAP + 1 means more), with its CTEs. */
function countExpression(q: GroupListQuery) {
  const capped = (b: GroupListWhere) =>
    `(SELECT count(*) FROM (SELECT 1 FROM namespaces n ${b.where} LIMIT ${COUNT_CAP + 1}) capped)`;
  // "Visible to everyone signed in, or mine" as one OR cannot use an index: the public part is
  // counted on the partial indexes of 0006 (stopping at the cap), the caller's few others apart.
  if (q.base.kind === "readable" && q.base.userId && q.base.publicFrom !== undefined) {
    const mine = groupListWhere(q, "mine");
    const pub = groupListWhere(q, "public", mine.w);
    return { w: mine.w, ctes: mine.ctes, expression: `${capped(pub)} + ${capped(mine)}` };
  }
  const b = groupListWhere(q);
  return { w: b.w, ctes: b.ctes, expression: capped(b) };
}

/**
 * How many groups the list holds, counting no further than the cap (GitLab omits X-Total past it):
 * the kept count when it is still valid (store/list-counts.ts), else a count that is then kept.
 */
export async function countGroupRows(
  db: Queryable,
  q: GroupListQuery,
  /** What listGroupRows' kept_count said: a count, null (none valid), or not asked. */
  kept?: number | null,
): Promise<number> {
  if (typeof kept === "number") return kept;
  const key = countKeyOf(q);
  return (
    (kept === null ? undefined : await keptCount(db, key)) ??
    (await countAndKeep(db, key, countExpression(q)))
  );
}

/** The custom attributes of the listed groups, by group id. */
export async function customAttributesOf(
  db: Queryable,
  ids: number[],
): Promise<Map<number, { key: string; value: string }[]>> {
  const { rows } = await db.query<{ namespace_id: number; key: string; value: string }>(
    "SELECT namespace_id, key, value FROM custom_attributes WHERE namespace_id = ANY($1::bigint[]) ORDER BY key",
    [ids],
  );
  const byGroup = new Map<number, { key: string; value: string }[]>();
  for (const r of rows) {
    const list = byGroup.get(Number(r.namespace_id)) ?? [];
    list.push({ key: r.key, value: r.value });
    byGroup.set(Number(r.namespace_id), list);
  }
  return byGroup;
}
