import { decodeKeysetCursor, encodeKeysetCursor } from "@canopy/kit";

/**
 * The order of a project list and its keyset cursors, as pure rules.
 *
 * GitLab orders project lists by `order_by` (default created_at) in the `sort` direction (default
 * desc) with the id as tie-breaker in the same direction (reference §1.7). `similarity` is a
 * score (finders/project-lists.ts orderOf); here it falls back to created_at.
 *
 * A keyset cursor is the last row's sort key and id with the order's tag (the kit's
 * keyset-cursor.ts: base64url JSON, bound as parameters); here, which values they may take, so
 * that a cursor is refused unless it decodes to exactly what this order needs.
 */
export const ORDER_BYS = [
  "id",
  "name",
  "path",
  "created_at",
  "updated_at",
  "last_activity_at",
  "similarity",
  "star_count",
] as const;

export type Column = "id" | "name" | "path" | "created_at" | "updated_at" | "last_activity_at" | "star_count";

export interface ListOrder {
  tag: string;
  column: Column;
  desc: boolean;
  /** The id tie-breaker's direction when it differs from the key's (similarity without search). */
  tieDesc?: boolean;
}

export function listOrder(orderBy: string, sort: string): ListOrder {
  const desc = sort !== "asc";
  const column: Column =
    !orderBy || orderBy === "similarity" || !(ORDER_BYS as readonly string[]).includes(orderBy)
      ? "created_at"
      : (orderBy as Column);
  return { tag: `${column}:${desc ? "desc" : "asc"}`, column, desc };
}

export const isTimeColumn = (c: Column) =>
  c === "created_at" || c === "updated_at" || c === "last_activity_at";

/** A timestamp as PostgreSQL prints one (microseconds kept, so no row is skipped or repeated). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)?$/;

/** Whether the order's key is a number (else text). */
export const isNumericColumn = (c: Column) => c === "id" || c === "star_count";

/** The cursor that continues after a row whose key is `value` (text for timestamps) and id `id`. */
export function encodeCursor(order: ListOrder, value: string | number, id: number): string {
  return encodeKeysetCursor(order.tag, [value, id]);
}

/** The key and id a cursor carries, or undefined when it is not a cursor of this order. */
export function decodeCursor(order: ListOrder, cursor: string): [string | number, number] | undefined {
  const k = decodeKeysetCursor(order.tag, cursor, 2);
  if (!k) return undefined;
  const [value, id] = k;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return undefined;
  const numeric = isNumericColumn(order.column);
  if (numeric && (typeof value !== "number" || !Number.isSafeInteger(value))) return undefined;
  if (!numeric && (typeof value !== "string" || value.length > 1_000 || value.includes("\u0000")))
    return undefined;
  if (isTimeColumn(order.column) && !TIMESTAMP.test(value as string)) return undefined;
  return [value as string | number, id];
}
