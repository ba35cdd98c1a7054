/**
 * The one way tests outside the members API give a user a direct membership: written straight into
 * the groups schema, as the members API would store it (added, or changed when already there). Used
 * by the groups service's tests (search_path `groups`) and the gateway's (`stack.db`), hence the
 * schema-qualified names. Waits for the user's copy first: auth's event may still be on its way.
 */
import type { Queryable } from "@canopy/kit";
import { waitFor } from "@canopy/kit/testing";

export async function insertMembership(
  db: Queryable,
  m: { groupId: number; userId: number; accessLevel: number; expiresAt?: string | null },
): Promise<void> {
  await waitFor(
    `user ${m.userId} to reach the groups service`,
    async () => (await db.query("SELECT 1 FROM groups.users WHERE id = $1", [m.userId])).rowCount === 1,
    15_000,
  );
  await db.query(
    `INSERT INTO groups.members (namespace_id, user_id, access_level, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (namespace_id, user_id) DO UPDATE SET access_level = $3, expires_at = $4`,
    [m.groupId, m.userId, m.accessLevel, m.expiresAt ?? null],
  );
}
