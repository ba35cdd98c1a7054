import type { Queryable } from "@canopy/kit";

/**
 * Stores a sealed runners token unless the group already has one, and answers the one it has: two
 * first reads at once converge on the same token (the loser's candidate is dropped).
 */
export async function keepRunnersToken(db: Queryable, groupId: number, sealed: Buffer): Promise<Buffer> {
  const { rows } = await db.query<{ runners_token_encrypted: Buffer }>({
    name: "groups-keep-runners-token",
    text: `WITH kept AS (
       UPDATE namespaces SET runners_token_encrypted = $2
        WHERE id = $1 AND runners_token_encrypted IS NULL
       RETURNING runners_token_encrypted)
     SELECT runners_token_encrypted FROM kept
     UNION ALL
     SELECT runners_token_encrypted FROM namespaces WHERE id = $1 AND runners_token_encrypted IS NOT NULL
     LIMIT 1`,
    values: [groupId, sealed],
  });
  if (rows[0]) return rows[0].runners_token_encrypted;
  // Another first read stored its token while this statement waited for the row: the statement's
  // snapshot predates that commit, so the kept token is read in a new one.
  const again = await db.query<{ runners_token_encrypted: Buffer }>(
    "SELECT runners_token_encrypted FROM namespaces WHERE id = $1 AND runners_token_encrypted IS NOT NULL",
    [groupId],
  );
  if (!again.rows[0]) throw new Error(`group ${groupId} has no runners token and none could be kept`);
  return again.rows[0].runners_token_encrypted;
}
