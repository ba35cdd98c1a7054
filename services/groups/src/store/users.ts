import type { Queryable } from "@canopy/kit";
import type { events } from "@canopy/protos";

/** The copy of a user this service keeps (from auth's events; see events/users.ts). */
export interface UserRow {
  id: number;
  username: string;
  name: string;
  state: string;
  admin: boolean;
  external: boolean;
  can_create_group: boolean;
  avatar_url: string;
  /** Empty when the snapshot it came from did not carry it. */
  email: string;
}

export type UserCopy = Omit<UserRow, "state"> & { state?: string };

/** Writes the copy as given (a newer snapshot replaces the older one). */
export async function upsertUser(db: Queryable, u: UserCopy): Promise<void> {
  await db.query(
    `INSERT INTO users (id, username, name, state, admin, external, can_create_group, avatar_url, email)
     VALUES ($1, $2, $3, COALESCE($4, 'active'), $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, name = EXCLUDED.name,
       state = COALESCE($4, users.state), admin = EXCLUDED.admin, external = EXCLUDED.external,
       can_create_group = EXCLUDED.can_create_group, avatar_url = EXCLUDED.avatar_url,
       email = EXCLUDED.email, updated_at = now()`,
    [
      u.id,
      u.username,
      u.name,
      u.state ?? null,
      u.admin,
      u.external,
      u.can_create_group,
      u.avatar_url,
      u.email,
    ],
  );
}

/** A user snapshot (auth's events, or the gateway's copy of the caller) as the row this service keeps. */
export const userRowOf = (s: events.UserSnapshot): UserRow => ({
  id: s.userId,
  username: s.username,
  name: s.name,
  state: s.state || "active",
  admin: s.admin,
  external: s.external,
  can_create_group: s.canCreateGroup,
  avatar_url: s.avatarUrl,
  email: s.email,
});

/**
 * Fills a missing copy only: an event already applied is never overwritten by an older hint, and a
 * user whose deletion was applied is never brought back by a hint read before it.
 */
export async function insertUserIfMissing(db: Queryable, u: UserRow): Promise<void> {
  await db.query(
    `INSERT INTO users (id, username, name, state, admin, external, can_create_group, avatar_url, email)
     SELECT $1::bigint, $2::text, $3::text, $4::text, $5::boolean, $6::boolean, $7::boolean, $8::text,
            $9::text
      WHERE NOT EXISTS (SELECT 1 FROM deleted_users WHERE id = $1::bigint)
     ON CONFLICT (id) DO NOTHING`,
    [u.id, u.username, u.name, u.state, u.admin, u.external, u.can_create_group, u.avatar_url, u.email],
  );
}

export async function setUserState(db: Queryable, id: number, state: string): Promise<void> {
  await db.query("UPDATE users SET state = $2, updated_at = now() WHERE id = $1", [id, state]);
}

/** Removes the copy; the user's memberships go with it (ON DELETE CASCADE). */
export async function deleteUser(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM users WHERE id = $1", [id]);
  await db.query("INSERT INTO deleted_users (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", [id]);
}

/**
 * The user's copy; when it has none yet, `hint` (the gateway's snapshot of the caller, ahead of
 * auth's event) is kept first, as insertUserIfMissing does, in the same round trip.
 */
export async function findUserOrKeep(
  db: Queryable,
  id: number,
  hint?: UserRow,
): Promise<UserRow | undefined> {
  if (!hint || hint.id !== id) return findUser(db, id);
  const u = hint;
  const { rows } = await db.query<UserRow>({
    name: "groups-find-or-keep-user",
    text: `WITH known AS (SELECT * FROM users WHERE id = $1::bigint),
       kept AS (
         INSERT INTO users (id, username, name, state, admin, external, can_create_group, avatar_url, email)
         SELECT $1::bigint, $2::text, $3::text, $4::text, $5::boolean, $6::boolean, $7::boolean, $8::text, $9::text
          WHERE NOT EXISTS (SELECT 1 FROM known) AND NOT EXISTS (SELECT 1 FROM deleted_users WHERE id = $1::bigint)
         ON CONFLICT (id) DO NOTHING
         RETURNING *)
     SELECT * FROM known UNION ALL SELECT * FROM kept`,
    values: [
      u.id,
      u.username,
      u.name,
      u.state,
      u.admin,
      u.external,
      u.can_create_group,
      u.avatar_url,
      u.email,
    ],
  });
  // Kept meanwhile by auth's event (the conflict): this statement's snapshot is older than that.
  return rows[0] ?? findUser(db, id);
}

export async function findUser(db: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>("SELECT * FROM users WHERE id = $1", [id]);
  return rows[0];
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  if (!username) return undefined;
  const { rows } = await db.query<UserRow>("SELECT * FROM users WHERE lower(username) = lower($1)", [
    username,
  ]);
  return rows[0];
}
