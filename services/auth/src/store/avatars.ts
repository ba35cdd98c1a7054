import type { Queryable } from "@canopy/kit";

export interface UserAvatarRow {
  user_id: number;
  filename: string;
  content_type: string;
  content: Buffer;
  updated_at: Date;
}

/** Replaces the user's avatar: the bytes, and the name kept on the user row for every entity's URL. */
export async function putUserAvatar(
  db: Queryable,
  a: { userId: number; filename: string; contentType: string; content: Uint8Array },
): Promise<void> {
  await db.query(
    `INSERT INTO user_avatars (user_id, filename, content_type, content) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id) DO UPDATE
       SET filename = EXCLUDED.filename, content_type = EXCLUDED.content_type,
           content = EXCLUDED.content, updated_at = now()`,
    [a.userId, a.filename, a.contentType, Buffer.from(a.content)],
  );
  await db.query("UPDATE users SET avatar_filename = $2, updated_at = now() WHERE id = $1", [
    a.userId,
    a.filename,
  ]);
}

export async function findUserAvatar(db: Queryable, userId: number): Promise<UserAvatarRow | undefined> {
  const { rows } = await db.query<UserAvatarRow>(
    "SELECT user_id, filename, content_type, content, updated_at FROM user_avatars WHERE user_id = $1",
    [userId],
  );
  return rows[0];
}
