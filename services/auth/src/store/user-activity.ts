import { countCapped, type Queryable } from "@canopy/kit";

/** Today as UTC sees it, whatever the session's time zone. */
const TODAY = "(now() AT TIME ZONE 'UTC')::date";

/**
 * Records that the user was active today: one row write the first time in a day, none after (the
 * condition keeps a repeated call from writing). Blocked users' requests never get here.
 */
export async function touchLastActivity(db: Queryable, userId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET last_activity_on = ${TODAY}
      WHERE id = $1 AND (last_activity_on IS NULL OR last_activity_on < ${TODAY})`,
    [userId],
  );
  return Boolean(rowCount);
}

// `from` is an instant (GitLab compares the date column with a DateTime): a day counts from its start, UTC.
const SINCE = "last_activity_on::timestamp >= ($1::timestamptz AT TIME ZONE 'UTC')";

export async function listActivities(db: Queryable, from: string, limit: number, offset: number) {
  const { rows } = await db.query<{ username: string; last_activity_on: string }>(
    `SELECT username, to_char(last_activity_on, 'YYYY-MM-DD') AS last_activity_on FROM users
      WHERE ${SINCE} ORDER BY last_activity_on, id LIMIT $2 OFFSET $3`,
    [from, limit, offset],
  );
  return rows.map((r) => ({ username: r.username, lastActivityOn: r.last_activity_on }));
}

export const countActivities = (db: Queryable, from: string) =>
  countCapped(db, `SELECT 1 FROM users WHERE ${SINCE}`, [from]);
