import type { Queryable } from "@canopy/kit";

/** Stars the project for the user; false when it was starred already. Keeps star_count exact. */
export async function addStar(db: Queryable, userId: number, projectId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    "INSERT INTO stars (user_id, project_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [userId, projectId],
  );
  if (rowCount) await db.query("UPDATE projects SET star_count = star_count + 1 WHERE id = $1", [projectId]);
  return Boolean(rowCount);
}

/** Removes the user's star; false when there was none. */
export async function removeStar(db: Queryable, userId: number, projectId: number): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM stars WHERE user_id = $1 AND project_id = $2", [
    userId,
    projectId,
  ]);
  if (rowCount) await db.query("UPDATE projects SET star_count = star_count - 1 WHERE id = $1", [projectId]);
  return Boolean(rowCount);
}

export async function hasStarred(db: Queryable, userId: number, projectId: number): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM stars WHERE user_id = $1 AND project_id = $2", [
    userId,
    projectId,
  ]);
  return Boolean(rowCount);
}
