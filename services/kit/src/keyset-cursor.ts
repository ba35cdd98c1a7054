/*
 * The keyset cursors of the lists that page by cursor (GitLab's `pagination=keyset`): the last
 * row's sort key values with the tag of the order they belong to, as base64url JSON. Opaque to
 * clients but not secret: the values are bound as parameters, and a cursor that does not decode to
 * exactly what its order needs is refused (never a 500). Which values an order's keys may take is
 * the list's own rule (each service's domain/list-order.ts); this is the envelope.
 */

/** The cursor that continues after a row whose sort key values are `keys`, in order `tag`. */
export function encodeKeysetCursor(tag: string, keys: unknown[]): string {
  return Buffer.from(JSON.stringify({ o: tag, k: keys })).toString("base64url");
}

/**
 * The `length` key values a cursor of order `tag` carries, not yet checked one by one, or undefined
 * when it is no such cursor (too long, not base64url, not JSON, of another order or key count).
 */
export function decodeKeysetCursor(tag: string, cursor: string, length: number): unknown[] | undefined {
  if (cursor.length > 2_000 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof decoded !== "object" || decoded === null) return undefined;
  const { o, k } = decoded as { o?: unknown; k?: unknown };
  if (o !== tag || !Array.isArray(k) || k.length !== length) return undefined;
  return k as unknown[];
}
