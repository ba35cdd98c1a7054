import { type Queryable, UTC_TODAY } from "@canopy/kit";
import { MEMBER_COLUMNS, type MemberRow } from "./members";
import { LINK_COLUMNS, type GroupLinkRow } from "./sharing";

/**
 * Expired rows are those whose `expires_at` is today (UTC) or earlier: they already give no access
 * (every access query ignores them); these remove them. Each takes at most `limit` rows, locked
 * FOR UPDATE SKIP LOCKED, so replicas running at once take different rows and never wait on each
 * other, and a row a request is changing right now is left to the next pass. Both walk the partial
 * indexes of migration 0010.
 */
export async function deleteExpiredMembers(db: Queryable, limit: number): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `DELETE FROM members m WHERE m.id IN (
       SELECT id FROM members WHERE expires_at <= ${UTC_TODAY} ORDER BY expires_at, id LIMIT $1
          FOR UPDATE SKIP LOCKED)
     RETURNING ${MEMBER_COLUMNS}`,
    [limit],
  );
  return rows;
}

export async function deleteExpiredGroupLinks(db: Queryable, limit: number): Promise<GroupLinkRow[]> {
  const { rows } = await db.query<GroupLinkRow>(
    `DELETE FROM group_links l WHERE l.id IN (
       SELECT id FROM group_links WHERE expires_at <= ${UTC_TODAY} ORDER BY expires_at, id LIMIT $1
          FOR UPDATE SKIP LOCKED)
     RETURNING ${LINK_COLUMNS}`,
    [limit],
  );
  return rows;
}
