import { decodeKeysetCursor, encodeKeysetCursor } from "@canopy/kit";

/**
 * The order of a group list and its keyset cursors, as pure rules.
 *
 * GitLab orders group lists by `order_by` in the `sort` direction with the id as tie-breaker,
 * always ascending (lib/api/groups.rb `group_without_similarity_options`); `order_by=id` is the id
 * alone in the requested direction; `similarity` with a search is the score descending, then
 * parent_id descending (nulls last), then id descending, whatever `sort` says; without a search it
 * is name order.
 *
 * A keyset cursor is the last row's sort key and id, with the order it belongs to (the kit's
 * keyset-cursor.ts: base64url JSON, bound as parameters); here, which values each key may take, so
 * that a cursor that does not decode to exactly the key this order needs is refused (never a 500).
 */

export const ORDER_BYS = ["name", "path", "id", "similarity"] as const;
export type OrderBy = (typeof ORDER_BYS)[number];
export type Sort = "asc" | "desc";

/** One column of the order. `parent` is COALESCE(parent_id, 0): nulls last when descending. */
export interface SortKey {
  column: "name" | "path" | "id" | "score" | "parent";
  desc: boolean;
}

export interface ListOrder {
  /** Names the order inside cursors, so a cursor of one order cannot page another. */
  tag: string;
  keys: SortKey[];
}

const asc = (column: SortKey["column"]): SortKey => ({ column, desc: false });

/** The order a request asks for (empty `orderBy` is name, empty `sort` is asc). */
export function listOrder(orderBy: string, sort: string, searching: boolean): ListOrder {
  const desc = sort === "desc";
  const by = orderBy || "name";
  if (by === "similarity" && searching)
    return {
      tag: "similarity",
      keys: [
        { column: "score", desc: true },
        { column: "parent", desc: true },
        { column: "id", desc: true },
      ],
    };
  if (by === "id") return { tag: `id:${desc ? "desc" : "asc"}`, keys: [{ column: "id", desc }] };
  const column = by === "path" ? "path" : "name";
  return { tag: `${column}:${desc ? "desc" : "asc"}`, keys: [{ column, desc }, asc("id")] };
}

/** A value of the key's column as a cursor may carry it. */
function validValue(column: SortKey["column"], v: unknown): boolean {
  switch (column) {
    case "name":
    case "path":
      return typeof v === "string" && v.length <= 1_000 && !v.includes("\u0000");
    case "score":
      return typeof v === "number" && Number.isFinite(v);
    case "id":
    case "parent":
      return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  }
}

/** The cursor that continues after a row whose key values are `values` (in `order.keys` order). */
export const encodeCursor = (order: ListOrder, values: unknown[]): string =>
  encodeKeysetCursor(order.tag, values);

/** The key values a cursor carries, or undefined when it is not a cursor of this order. */
export function decodeCursor(order: ListOrder, cursor: string): unknown[] | undefined {
  const k = decodeKeysetCursor(order.tag, cursor, order.keys.length);
  return k && order.keys.every((key, i) => validValue(key.column, k[i])) ? k : undefined;
}
