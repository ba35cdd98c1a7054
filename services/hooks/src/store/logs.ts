import type { Queryable } from "@canopy/kit";
import type { DeliveryLogEntry } from "../delivery";

export interface LogRow {
  id: number;
  hook_id: number;
  trigger: string;
  url: string;
  url_hash: string;
  request_headers: Record<string, string>;
  request_data: unknown;
  response_headers: Record<string, string>;
  response_body: string;
  response_status: string;
  execution_duration: number;
  idempotency_key: string;
  created_at: Date;
}

const row = (r: LogRow & { id: string | number; hook_id: string | number }): LogRow => ({
  ...r,
  id: Number(r.id),
  hook_id: Number(r.hook_id),
});

/** One attempt's row (the entry is already redacted and truncated: delivery/log-entry.ts). */
export async function insertLog(
  db: Queryable,
  hookId: number,
  idempotencyKey: string,
  entry: DeliveryLogEntry,
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO hook_logs (hook_id, trigger, url, url_hash, request_headers, request_data, response_headers,
                            response_body, response_status, execution_duration, internal_error_message,
                            idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
    [
      hookId,
      entry.trigger,
      entry.url,
      entry.urlHash,
      JSON.stringify(entry.requestHeaders),
      JSON.stringify(entry.requestData ?? {}),
      JSON.stringify(entry.responseHeaders),
      entry.responseBody.replaceAll("\u0000", ""),
      entry.responseStatus,
      entry.executionDuration,
      entry.internalErrorMessage,
      idempotencyKey,
    ],
  );
  return Number(rows[0]!.id);
}

/**
 * GitLab's WebHookLogsFinder: the last 7 days, newest first; `status` values OR-ed: an HTTP code,
 * `successful` (200..299), `client_failure` (400..499), `server_failure` (500..599 and "internal error").
 */
export async function listLogs(
  db: Queryable,
  hookId: number,
  status: string[],
  window: { limit: number; offset: number },
): Promise<{ logs: LogRow[]; total: number }> {
  const codes = status.filter((s) => /^\d+$/.test(s));
  const ranges: string[] = [];
  if (status.includes("successful")) ranges.push("code BETWEEN 200 AND 299");
  if (status.includes("client_failure")) ranges.push("code BETWEEN 400 AND 499");
  if (status.includes("server_failure"))
    ranges.push("code BETWEEN 500 AND 599", "l.response_status = 'internal error'");
  if (codes.length) ranges.push("l.response_status = ANY($4::text[])");
  const filter = status.length ? `AND (${ranges.join(" OR ")})` : "";
  const { rows } = await db.query<LogRow & { total: number }>(
    `SELECT l.*, count(*) OVER ()::int AS total
       FROM hook_logs l
       CROSS JOIN LATERAL (SELECT CASE WHEN l.response_status ~ '^[0-9]{1,4}$' THEN l.response_status::int END AS code) c
      WHERE l.hook_id = $1 AND l.created_at > now() - interval '7 days' ${filter}
      ORDER BY l.created_at DESC, l.id DESC LIMIT $2 OFFSET $3`,
    codes.length ? [hookId, window.limit, window.offset, codes] : [hookId, window.limit, window.offset],
  );
  return { logs: rows.map(row), total: rows[0]?.total ?? 0 };
}

export async function findLog(db: Queryable, hookId: number, id: number): Promise<LogRow | undefined> {
  const { rows } = await db.query<LogRow>("SELECT * FROM hook_logs WHERE id = $1 AND hook_id = $2", [
    id,
    hookId,
  ]);
  return rows[0] && row(rows[0]);
}

/** Deletes up to `batch` rows older than `days`; the number deleted. */
export async function pruneLogs(db: Queryable, days: number, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM hook_logs WHERE id IN (
       SELECT id FROM hook_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
    [days, batch],
  );
  return rowCount ?? 0;
}
