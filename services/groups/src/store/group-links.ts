import type { Queryable } from "@canopy/kit";
import { readableSql, readerCtes } from "./access";

export interface SharedWithRow {
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access_level: number;
  expires_at: string | null;
}

/**
 * The groups `groupId` is shared with, restricted to those the viewer may read (all of them for an
 * administrator), in link order.
 */
export async function findSharedWith(
  db: Queryable,
  groupId: number,
  viewer: { userId: number; admin: boolean; lowestVisibleLevel: number },
): Promise<SharedWithRow[]> {
  // Prepared (named): every GET /groups/:id runs it, and planning it costs more than running it.
  const { rows } = await db.query<SharedWithRow>({
    name: "groups-shared-with",
    text: `WITH ${readerCtes("$2")}
     SELECT g.id AS group_id, g.name AS group_name, g.full_path AS group_full_path,
            l.group_access AS group_access_level, to_char(l.expires_at, 'YYYY-MM-DD') AS expires_at
       FROM group_links l JOIN namespaces g ON g.id = l.shared_with_group_id
      WHERE l.shared_group_id = $1 AND ($3 OR ${readableSql("g", "$4")})
      ORDER BY l.id`,
    values: [groupId, viewer.userId, viewer.admin, viewer.lowestVisibleLevel],
  });
  return rows;
}
