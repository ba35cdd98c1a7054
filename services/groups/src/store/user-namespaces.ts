import type { Queryable } from "@canopy/kit";
import { NAMESPACE_COLUMNS, type NamespaceRow } from "./namespaces";

/** GitLab gives users' personal namespaces the public level; what is in them has its own. */
const PERSONAL_VISIBILITY = 20;

/**
 * Creates or renames the user's personal namespace (path = username, name = the user's name).
 * Returns the row when something changed, undefined when nothing did or when another namespace
 * already holds the path (a group created before the user: left for an administrator to resolve).
 */
export async function upsertUserNamespace(
  db: Queryable,
  user: { id: number; username: string; name: string },
): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(
    `WITH existing AS (SELECT id FROM namespaces WHERE owner_id = $1),
     clash AS (SELECT 1 FROM namespaces WHERE lower(full_path) = lower($2) AND owner_id IS DISTINCT FROM $1),
     updated AS (
       UPDATE namespaces n SET path = $2, full_path = $2, name = $3, full_name = $3, updated_at = now()
        WHERE n.owner_id = $1 AND NOT EXISTS (SELECT 1 FROM clash) AND (n.path, n.name) IS DISTINCT FROM ($2, $3)
       RETURNING ${NAMESPACE_COLUMNS}),
     new AS (SELECT nextval(pg_get_serial_sequence('namespaces', 'id')) AS id
              WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM clash)),
     inserted AS (
       INSERT INTO namespaces AS n (id, kind, owner_id, traversal_ids, path, full_path, name, full_name, visibility_level)
       SELECT new.id, 'user', $1, ARRAY[new.id], $2, $2, $3, $3, ${PERSONAL_VISIBILITY} FROM new
       RETURNING ${NAMESPACE_COLUMNS})
     SELECT * FROM updated UNION ALL SELECT * FROM inserted`,
    [user.id, user.username, user.name],
  );
  return rows[0];
}

export async function deleteUserNamespace(db: Queryable, userId: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(
    `DELETE FROM namespaces n WHERE n.owner_id = $1 RETURNING ${NAMESPACE_COLUMNS}`,
    [userId],
  );
  return rows[0];
}
