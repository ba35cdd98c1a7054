import type { Queryable } from "@canopy/kit";
import { dnKey } from "../domain/member-dn";

/** A user's LDAP identities as auth published them (provider + extern_uid DN), replaced as a whole. */
export async function replaceIdentities(
  db: Queryable,
  userId: number,
  identities: { provider: string; externUid: string }[],
): Promise<void> {
  await db.query("DELETE FROM identities WHERE user_id = $1", [userId]);
  for (const i of identities)
    await db.query(
      `INSERT INTO identities (user_id, provider, extern_uid, dn_key) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, provider) DO UPDATE SET extern_uid = EXCLUDED.extern_uid, dn_key = EXCLUDED.dn_key`,
      [userId, i.provider, i.externUid, dnKey(i.externUid)],
    );
}

/** The Canopy users of (provider, DN) pairs, matched case-insensitively: dnKey -> user id, per provider. */
export async function usersOfDns(
  db: Queryable,
  pairs: { provider: string; key: string }[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < pairs.length; i += 5000) {
    const chunk = pairs.slice(i, i + 5000);
    const { rows } = await db.query<{ provider: string; dn_key: string; user_id: number }>(
      `SELECT i.provider, i.dn_key, i.user_id::int FROM identities i
         JOIN unnest($1::text[], $2::text[]) AS p(provider, dn_key)
           ON i.provider = p.provider AND i.dn_key = p.dn_key`,
      [chunk.map((p) => p.provider), chunk.map((p) => p.key)],
    );
    for (const r of rows) found.set(`${r.provider}\u0000${r.dn_key}`, r.user_id);
  }
  return found;
}

/** Current members of the group (this service's copy) holding an identity of one of `providers`. */
export async function managedMembers(db: Queryable, groupId: number, providers: string[]): Promise<number[]> {
  if (!providers.length) return [];
  const { rows } = await db.query<{ user_id: number }>(
    `SELECT DISTINCT m.user_id::int FROM group_members m JOIN identities i ON i.user_id = m.user_id
      WHERE m.namespace_id = $1 AND i.provider = ANY($2::text[])`,
    [groupId, providers],
  );
  return rows.map((r) => r.user_id);
}
