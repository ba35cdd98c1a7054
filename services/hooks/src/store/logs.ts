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

/** An attempt to log: its hook, its entry (already redacted and truncated: delivery/log-entry.ts), when it ended. */
export interface LoggedAttempt {
  hookId: number;
  idempotencyKey: string;
  entry: DeliveryLogEntry;
  at: Date;
}

/**
 * The rows of several attempts as one INSERT (parameters from `$first` on), so the runs a worker
 * sent are logged in the statement that finishes them (store/deliveries.ts finishRuns).
 */
export function logInsert(attempts: LoggedAttempt[], first = 1) {
  const p = (i: number) => `$${first + i}`;
  const sql = `INSERT INTO hook_logs (hook_id, trigger, url, url_hash, request_headers, request_data,
                            response_headers, response_body, response_status, execution_duration,
                            internal_error_message, idempotency_key, created_at)
     SELECT * FROM unnest(${p(0)}::bigint[], ${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::jsonb[],
       ${p(5)}::jsonb[], ${p(6)}::jsonb[], ${p(7)}::text[], ${p(8)}::text[], ${p(9)}::float8[], ${p(10)}::text[],
       ${p(11)}::uuid[], ${p(12)}::timestamptz[])`;
  const column = <T>(of: (a: LoggedAttempt) => T) => attempts.map(of);
  const values = [
    column((a) => a.hookId),
    column((a) => a.entry.trigger),
    column((a) => a.entry.url),
    column((a) => a.entry.urlHash),
    column((a) => JSON.stringify(a.entry.requestHeaders)),
    column((a) => JSON.stringify(a.entry.requestData ?? {})),
    column((a) => JSON.stringify(a.entry.responseHeaders)),
    column((a) => a.entry.responseBody.replaceAll("\u0000", "")),
    column((a) => a.entry.responseStatus),
    column((a) => a.entry.executionDuration),
    column((a) => a.entry.internalErrorMessage),
    column((a) => a.idempotencyKey),
    column((a) => a.at),
  ];
  return { sql, values };
}

/** One attempt's row (a test or a resend); its id. */
export async function insertLog(db: Queryable, attempt: LoggedAttempt): Promise<number> {
  const { sql, values } = logInsert([attempt]);
  const { rows } = await db.query<{ id: string }>(`${sql} RETURNING id`, values);
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
