import type { Queryable } from "@canopy/kit";
import { deleteEventsOfAuthor } from "./events";
import type { events } from "@canopy/protos";

/** The copy of a user this service keeps (from auth's events; see events/users.ts). */
export interface UserRow {
  id: number;
  username: string;
  name: string;
  state: string;
  admin: boolean;
  external: boolean;
  avatar_url: string;
  email: string;
}

export const userRowOf = (s: events.UserSnapshot): UserRow => ({
  id: s.userId,
  username: s.username,
  name: s.name,
  state: s.state || "active",
  admin: s.admin,
  external: s.external,
  avatar_url: s.avatarUrl,
  email: s.email,
});

/** Writes the copy as given; an empty state (events older than snapshots) keeps the copy's. */
export async function upsertUser(db: Queryable, u: UserRow, keepState = false): Promise<void> {
  await db.query(
    `INSERT INTO users (id, username, name, state, admin, external, avatar_url, email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $9)
     ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, name = EXCLUDED.name,
       state = CASE WHEN $8 THEN users.state ELSE EXCLUDED.state END, admin = EXCLUDED.admin,
       external = EXCLUDED.external, avatar_url = EXCLUDED.avatar_url,
       email = CASE WHEN EXCLUDED.email = '' THEN users.email ELSE EXCLUDED.email END, updated_at = now()`,
    [u.id, u.username, u.name, u.state, u.admin, u.external, u.avatar_url, keepState, u.email],
  );
}

/** Fills a missing copy only (the gateway's hint of a caller auth's events have not brought yet). */
export async function insertUserIfMissing(db: Queryable, u: UserRow): Promise<void> {
  await db.query(
    `INSERT INTO users (id, username, name, state, admin, external, avatar_url, email)
     SELECT $1::bigint, $2::text, $3::text, $4::text, $5::boolean, $6::boolean, $7::text, $8::text
      WHERE NOT EXISTS (SELECT 1 FROM deleted_users WHERE id = $1::bigint)
     ON CONFLICT (id) DO NOTHING`,
    [u.id, u.username, u.name, u.state, u.admin, u.external, u.avatar_url, u.email],
  );
}

export async function setUserState(db: Queryable, id: number, state: string): Promise<void> {
  await db.query("UPDATE users SET state = $2, updated_at = now() WHERE id = $1", [id, state]);
}

/** Forgets the user: their copy, stars, direct project memberships and the events they authored. */
export async function deleteUser(db: Queryable, id: number): Promise<void> {
  await db.query(
    `WITH s AS (DELETE FROM stars WHERE user_id = $1 RETURNING project_id)
     UPDATE projects p SET star_count = star_count - c.n
       FROM (SELECT project_id, count(*)::int AS n FROM s GROUP BY project_id) c WHERE p.id = c.project_id`,
    [id],
  );
  await db.query("DELETE FROM project_members WHERE user_id = $1", [id]);
  await db.query("DELETE FROM group_members WHERE user_id = $1", [id]);
  await db.query("DELETE FROM users WHERE id = $1", [id]);
  await deleteEventsOfAuthor(db, id);
  await db.query("INSERT INTO deleted_users (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", [id]);
}

export async function findUser(db: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>("SELECT * FROM users WHERE id = $1", [id]);
  return rows[0];
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    "SELECT * FROM users WHERE lower(username) = lower($1) ORDER BY id LIMIT 1",
    [username],
  );
  return rows[0];
}
