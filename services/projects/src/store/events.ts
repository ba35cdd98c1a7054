import { COUNT_CAP, type Queryable, UTC_TODAY } from "@canopy/kit";
import { visibleProjectsWhere } from "./project-lists";

/** GitLab's Event actions Canopy records (EventCreateService for projects and their members). */
export type EventAction = "created" | "joined" | "left" | "expired";

/** Records one project event; called inside the transaction of the change it tells of. */
export async function insertEvent(
  db: Queryable,
  e: { projectId: number; authorId: number; action: EventAction },
): Promise<void> {
  await db.query(
    `INSERT INTO events (project_id, author_id, action) SELECT $1, $2, $3
      WHERE ${NOT_DELETED_AUTHOR}`,
    [e.projectId, e.authorId, e.action],
  );
}

/**
 * A deleted user's events go with them (GitLab's User `has_many :events, dependent: :delete_all`), so
 * none may be written after the deletion reached this service: a change racing with it is not told.
 */
const NOT_DELETED_AUTHOR = "NOT EXISTS (SELECT 1 FROM deleted_users WHERE id = $2::bigint)";

/** Every event the user authored; their deletion's transaction. */
export async function deleteEventsOfAuthor(db: Queryable, authorId: number): Promise<void> {
  await db.query("DELETE FROM events WHERE author_id = $1", [authorId]);
}

/**
 * A membership removed: the member's `left`, or `expired` when it was past its `expires_at`
 * (ProjectMember#post_destroy_hook). Inside the removal's transaction.
 */
export async function insertLeaveEvent(
  db: Queryable,
  m: { project_id: number; user_id: number; expires_at: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO events (project_id, author_id, action)
     SELECT $1, $2, CASE WHEN $3::date <= ${UTC_TODAY} THEN 'expired' ELSE 'left' END
      WHERE ${NOT_DELETED_AUTHOR}`,
    [m.project_id, m.user_id, m.expires_at],
  );
}

export interface EventQuery {
  viewer: { userId: number; admin: boolean; lowest: number };
  /** Only projects the viewer has access to (GET /events?scope=all). */
  membership: boolean;
  authorId?: number;
  projectId?: number;
  action?: string;
  /** GitLab's class name of the target ("Project", "Issue"); Canopy's events have none. */
  targetType?: string;
  /** "YYYY-MM-DD": created before that day began, after it ended (UTC), as EventsFinder. */
  before?: string;
  after?: string;
  asc: boolean;
}

export interface EventRow {
  id: number;
  project_id: number;
  author_id: number;
  action: string;
  target_id: number | null;
  target_type: string | null;
  created_at: Date;
  username: string | null;
  name: string | null;
  state: string | null;
  avatar_url: string | null;
}

function build(q: EventQuery) {
  // The projects the viewer may see, by the rule of every project list.
  const { w, ctes } = visibleProjectsWhere({ ...q.viewer, membership: q.membership });
  if (q.authorId !== undefined) w.and(`e.author_id = ${w.param(q.authorId)}`);
  if (q.projectId !== undefined) w.and(`e.project_id = ${w.param(q.projectId)}`);
  if (q.action) w.and(`e.action = ${w.param(q.action)}`);
  if (q.targetType) w.and(`e.target_type = ${w.param(q.targetType)}`);
  if (q.before) w.and(`e.created_at < ${w.param(q.before)}::date::timestamp AT TIME ZONE 'UTC'`);
  if (q.after) w.and(`e.created_at >= (${w.param(q.after)}::date + 1)::timestamp AT TIME ZONE 'UTC'`);
  return { w, ctes, from: "events e JOIN projects p ON p.id = e.project_id" };
}

/** One page of events, newest first unless `asc`, with their author's copy. */
export async function listEvents(
  db: Queryable,
  q: EventQuery,
  window: { limit: number; offset: number },
): Promise<EventRow[]> {
  const { w, ctes, from } = build(q);
  const dir = q.asc ? "ASC" : "DESC";
  const { rows } = await db.query<EventRow>(
    `${ctes}
     SELECT e.id::int, e.project_id::int, e.author_id::int, e.action, e.target_id::int, e.target_type,
            e.created_at, u.username, u.name, u.state, u.avatar_url
       FROM ${from} LEFT JOIN users u ON u.id = e.author_id
      ${w.sql}
      ORDER BY e.id ${dir}
      LIMIT ${Number(window.limit)} OFFSET ${Number(window.offset)}`,
    w.params,
  );
  return rows;
}

/** How many events the list holds, no further than the cap + 1 (pageInfo's rule). */
export async function countEvents(db: Queryable, q: EventQuery): Promise<number> {
  const { w, ctes, from } = build(q);
  const { rows } = await db.query<{ n: number }>(
    `${ctes} SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from} ${w.sql} LIMIT ${COUNT_CAP + 1}) c`,
    w.params,
  );
  return rows[0]!.n;
}
