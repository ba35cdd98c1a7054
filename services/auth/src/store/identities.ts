import type { Queryable } from "@canopy/kit";

export interface IdentityRow {
  user_id: number;
  provider: string;
  extern_uid: string;
}

export async function listIdentities(db: Queryable, userId: number): Promise<IdentityRow[]> {
  const { rows } = await db.query<IdentityRow>({
    name: "identities-of-user",
    text: "SELECT user_id, provider, extern_uid FROM identities WHERE user_id = $1 ORDER BY provider",
    values: [userId],
  });
  return rows;
}

/** Identities of several users at once, for lists. */
export async function listIdentitiesOf(
  db: Queryable,
  userIds: number[],
): Promise<Map<number, IdentityRow[]>> {
  const byUser = new Map<number, IdentityRow[]>();
  if (!userIds.length) return byUser;
  const { rows } = await db.query<IdentityRow>(
    "SELECT user_id, provider, extern_uid FROM identities WHERE user_id = ANY($1) ORDER BY provider",
    [userIds],
  );
  for (const row of rows) byUser.set(Number(row.user_id), [...(byUser.get(Number(row.user_id)) ?? []), row]);
  return byUser;
}

/** The user holding this identity (extern_uid compared case-insensitively). */
export async function findUserIdByIdentity(
  db: Queryable,
  provider: string,
  externUid: string,
): Promise<number | undefined> {
  const { rows } = await db.query<{ user_id: string }>({
    name: "user-by-identity",
    text: "SELECT user_id FROM identities WHERE provider = $1 AND lower(extern_uid) = lower($2)",
    values: [provider, externUid],
  });
  return rows[0] ? Number(rows[0].user_id) : undefined;
}

/**
 * Adds the identity, or changes the user's extern_uid for that provider. False when another user
 * holds that extern_uid for the provider (nothing changes).
 */
export async function upsertIdentity(
  tx: Queryable,
  userId: number,
  provider: string,
  externUid: string,
): Promise<boolean> {
  const holder = await findUserIdByIdentity(tx, provider, externUid);
  if (holder !== undefined && holder !== userId) return false;
  await tx.query(
    `INSERT INTO identities (user_id, provider, extern_uid) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, provider) DO UPDATE SET extern_uid = EXCLUDED.extern_uid, updated_at = now()`,
    [userId, provider, externUid],
  );
  return true;
}

export async function deleteIdentity(tx: Queryable, userId: number, provider: string): Promise<boolean> {
  const { rowCount } = await tx.query("DELETE FROM identities WHERE user_id = $1 AND provider = $2", [
    userId,
    provider,
  ]);
  return Boolean(rowCount);
}
