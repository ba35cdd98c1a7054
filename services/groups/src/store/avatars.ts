import type { Queryable } from "@canopy/kit";

export interface AvatarRow {
  namespace_id: number;
  filename: string;
  content_type: string;
  content: Buffer;
  updated_at: Date;
}

/** Replaces the group's avatar (bytes and the name kept on the namespace, for lists without a join). */
export async function putAvatar(
  db: Queryable,
  a: { namespaceId: number; filename: string; contentType: string; content: Uint8Array },
): Promise<void> {
  await db.query(
    `INSERT INTO avatars (namespace_id, filename, content_type, content) VALUES ($1, $2, $3, $4)
     ON CONFLICT (namespace_id) DO UPDATE
       SET filename = EXCLUDED.filename, content_type = EXCLUDED.content_type,
           content = EXCLUDED.content, updated_at = now()`,
    [a.namespaceId, a.filename, a.contentType, Buffer.from(a.content)],
  );
  await db.query("UPDATE namespaces SET avatar_filename = $2 WHERE id = $1", [a.namespaceId, a.filename]);
}

/** Removes the group's avatar; true when it had one. */
export async function removeAvatar(db: Queryable, namespaceId: number): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM avatars WHERE namespace_id = $1", [namespaceId]);
  await db.query("UPDATE namespaces SET avatar_filename = NULL WHERE id = $1", [namespaceId]);
  return (rowCount ?? 0) > 0;
}

export async function findAvatar(db: Queryable, namespaceId: number): Promise<AvatarRow | undefined> {
  const { rows } = await db.query<AvatarRow>(
    "SELECT namespace_id, filename, content_type, content, updated_at FROM avatars WHERE namespace_id = $1",
    [namespaceId],
  );
  return rows[0];
}
