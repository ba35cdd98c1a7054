import type { Queryable } from "@canopy/kit";
import type { groupEvents, projectEvents } from "@canopy/protos";

/**
 * The copies of groups, users, memberships and projects (migration 0001), written only by the
 * events consumer. Each write is an idempotent upsert; `at` is the event's time, which becomes the
 * copy's created_at on insert and updated_at on every change (the payloads' timestamps).
 */

export interface NamespaceRow {
  id: number;
  name: string;
  path: string;
  full_path: string;
  created_at: Date;
  updated_at: Date;
  kind: string;
  parent_id: number | null;
  traversal_ids: number[];
  /** Set when the group was removed: a tombstone for events applied late (migration 0005). */
  removed_at: Date | null;
}

export interface UserRow {
  id: number;
  username: string;
  name: string;
  email: string;
  /** Empty when the user shows none. */
  public_email: string;
}

/** A project's copy with its owners (the Owners of its group or an ancestor). */
export interface ProjectRow {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  namespace_id: number;
  visibility_level: number;
  created_at: Date;
  updated_at: Date;
  owners: UserRow[];
}

const ids = (a: (string | number)[]) => a.map(Number);

type NamespaceRowDb = NamespaceRow & { id: string; parent_id: string | null; traversal_ids: string[] };

const namespaceOf = (r: NamespaceRowDb): NamespaceRow => ({
  ...r,
  id: Number(r.id),
  parent_id: r.parent_id === null ? null : Number(r.parent_id),
  traversal_ids: ids(r.traversal_ids),
});

/** The group's copy as the event has it; the row as it now stands. */
export async function upsertNamespace(
  db: Queryable,
  n: groupEvents.NamespaceSnapshot,
  at: Date,
): Promise<NamespaceRow> {
  const { rows } = await db.query<NamespaceRowDb>({
    name: "hooks-upsert-namespace",
    text: `INSERT INTO namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level,
                             created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, parent_id = EXCLUDED.parent_id,
       traversal_ids = EXCLUDED.traversal_ids, path = EXCLUDED.path, name = EXCLUDED.name,
       full_path = EXCLUDED.full_path, full_name = EXCLUDED.full_name,
       visibility_level = EXCLUDED.visibility_level, updated_at = GREATEST(namespaces.updated_at, EXCLUDED.updated_at)
     RETURNING *`,
    values: [
      n.id,
      n.kind || "group",
      n.parentId || null,
      n.traversalIds.length ? n.traversalIds : [n.id],
      n.path,
      n.name,
      n.fullPath,
      n.fullName,
      n.visibilityLevel,
      at,
    ],
  });
  return namespaceOf(rows[0]!);
}

/** A group's copy and, when it moved or was renamed, its descendants' full paths follow. */
export async function rebuildBelow(db: Queryable, id: number) {
  await db.query(
    `WITH RECURSIVE tree AS (
       SELECT id, traversal_ids, full_path, full_name FROM namespaces WHERE id = $1
       UNION ALL
       SELECT c.id, t.traversal_ids || c.id, t.full_path || '/' || c.path, t.full_name || ' / ' || c.name
         FROM namespaces c JOIN tree t ON c.parent_id = t.id)
     UPDATE namespaces n SET traversal_ids = tree.traversal_ids, full_path = tree.full_path, full_name = tree.full_name
       FROM tree WHERE n.id = tree.id AND n.id <> $1`,
    [id],
  );
}

/** A removed group becomes a tombstone (see migration 0005); its memberships go at once. */
export async function removeNamespace(db: Queryable, id: number) {
  await db.query("UPDATE namespaces SET removed_at = now() WHERE id = $1 AND removed_at IS NULL", [id]);
  await db.query("DELETE FROM group_members WHERE namespace_id = $1", [id]);
}

/** Tombstones older than `days`: no event can still be on its way by then. */
export async function pruneTombstones(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    "DELETE FROM namespaces WHERE removed_at < now() - make_interval(days => $1)",
    [days],
  );
  return rowCount ?? 0;
}

export async function findNamespace(db: Queryable, id: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRowDb>({
    name: "hooks-find-namespace",
    text: "SELECT * FROM namespaces WHERE id = $1",
    values: [id],
  });
  return rows[0] && namespaceOf(rows[0]);
}

export async function findNamespaces(db: Queryable, ids: number[]): Promise<NamespaceRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<NamespaceRowDb>({
    name: "hooks-find-namespaces",
    text: "SELECT * FROM namespaces WHERE id = ANY($1::bigint[])",
    values: [ids],
  });
  return rows.map(namespaceOf);
}

export async function upsertUser(db: Queryable, u: UserRow & { state: string }) {
  await db.query(
    `INSERT INTO users (id, username, name, email, public_email, state) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, name = EXCLUDED.name,
       email = CASE WHEN EXCLUDED.email = '' THEN users.email ELSE EXCLUDED.email END,
       -- A legacy event (no snapshot, empty state) knows nothing of the public e-mail.
       public_email = CASE WHEN EXCLUDED.state = '' THEN users.public_email ELSE EXCLUDED.public_email END,
       state = CASE WHEN EXCLUDED.state = '' THEN users.state ELSE EXCLUDED.state END`,
    [u.id, u.username, u.name, u.email, u.public_email, u.state],
  );
}

export async function setUserState(db: Queryable, id: number, state: string) {
  await db.query("UPDATE users SET state = $2 WHERE id = $1", [id, state]);
}

export async function deleteUser(db: Queryable, id: number) {
  await db.query("DELETE FROM users WHERE id = $1", [id]);
}

export async function findUser(db: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow & { id: string }>({
    name: "hooks-find-user",
    text: "SELECT id, username, name, email, public_email FROM users WHERE id = $1",
    values: [id],
  });
  return rows[0] && { ...rows[0], id: Number(rows[0].id) };
}

export async function findUsers(db: Queryable, ids: number[]): Promise<UserRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<UserRow & { id: string }>({
    name: "hooks-find-users",
    text: "SELECT id, username, name, email, public_email FROM users WHERE id = ANY($1::bigint[])",
    values: [ids],
  });
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export interface MemberRow {
  access_level: number;
  expires_at: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function findMember(
  db: Queryable,
  groupId: number,
  userId: number,
): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT access_level, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, created_at, updated_at
       FROM group_members WHERE namespace_id = $1 AND user_id = $2`,
    [groupId, userId],
  );
  return rows[0];
}

/** The membership after the event (its created_at kept from the first time it was seen). */
export async function upsertMember(db: Queryable, m: groupEvents.Membership, at: Date): Promise<MemberRow> {
  const { rows } = await db.query<MemberRow>({
    name: "hooks-upsert-member",
    text: `INSERT INTO group_members (namespace_id, user_id, access_level, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (namespace_id, user_id) DO UPDATE SET access_level = EXCLUDED.access_level,
       expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at
     RETURNING access_level, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, created_at, updated_at`,
    values: [m.groupId, m.userId, m.accessLevel, m.expiresAt || null, at],
  });
  return rows[0]!;
}

export async function deleteMember(db: Queryable, groupId: number, userId: number) {
  await db.query("DELETE FROM group_members WHERE namespace_id = $1 AND user_id = $2", [groupId, userId]);
}

export async function upsertProject(db: Queryable, p: projectEvents.ProjectSnapshot, at: Date) {
  await db.query(
    `INSERT INTO projects (id, namespace_id, traversal_ids, name, path, path_with_namespace, visibility_level,
                           archived, creator_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT (id) DO UPDATE SET namespace_id = EXCLUDED.namespace_id, traversal_ids = EXCLUDED.traversal_ids,
       name = EXCLUDED.name, path = EXCLUDED.path, path_with_namespace = EXCLUDED.path_with_namespace,
       visibility_level = EXCLUDED.visibility_level, archived = EXCLUDED.archived,
       updated_at = GREATEST(projects.updated_at, EXCLUDED.updated_at)`,
    [
      p.id,
      p.namespaceId,
      p.traversalIds,
      p.name,
      p.path,
      p.pathWithNamespace,
      p.visibilityLevel,
      p.archived,
      p.creatorId || null,
      at,
    ],
  );
}

export async function deleteProject(db: Queryable, id: number) {
  await db.query("DELETE FROM projects WHERE id = $1", [id]);
}

/** The project's copy as payloads name it, with its owners (Owners of its group or an ancestor). */
export async function findProject(db: Queryable, id: number): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow & { id: string; namespace_id: string }>(
    `SELECT p.id, p.name, p.path, p.path_with_namespace, p.namespace_id, p.visibility_level, p.created_at,
            p.updated_at,
            COALESCE((SELECT json_agg(json_build_object('id', u.id, 'username', u.username, 'name', u.name, 'email', u.email,
                                                   'public_email', u.public_email) ORDER BY u.id)
                        FROM (SELECT DISTINCT u.id, u.username, u.name, u.email, u.public_email
                                FROM group_members m JOIN users u ON u.id = m.user_id
                               WHERE m.namespace_id = ANY(p.traversal_ids) AND m.access_level = 50
                                 AND u.state = 'active') u), '[]'::json) AS owners
       FROM projects p WHERE p.id = $1`,
    [id],
  );
  const r = rows[0];
  return r && { ...r, id: Number(r.id), namespace_id: Number(r.namespace_id) };
}

/** The test endpoint's sample project: the group's first unarchived project, subgroups included. */
export async function firstProjectIn(db: Queryable, groupId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM projects WHERE traversal_ids @> ARRAY[$1::bigint] AND NOT archived ORDER BY id LIMIT 1",
    [groupId],
  );
  return rows[0] ? Number(rows[0].id) : undefined;
}
