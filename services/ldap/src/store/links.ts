import type { Queryable } from "@canopy/kit";

export interface LinkRow {
  id: number;
  group_id: number;
  cn: string | null;
  filter: string | null;
  group_access: number;
  provider: string;
}

const COLUMNS = "id::int, group_id::int, cn, filter, group_access, provider";

/** The group's links in the order they were made (GitLab's `group.ldap_group_links`). */
export async function linksOf(db: Queryable, groupId: number): Promise<LinkRow[]> {
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS} FROM ldap_group_links WHERE group_id = $1 ORDER BY id`,
    [groupId],
  );
  return rows;
}

/** The links of each of `groupIds`, each group's in the order they were made. */
export async function linksOfGroups(db: Queryable, groupIds: number[]): Promise<LinkRow[]> {
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS} FROM ldap_group_links WHERE group_id = ANY($1::bigint[]) ORDER BY group_id, id`,
    [groupIds],
  );
  return rows;
}

/**
 * Inserts a link unless the same cn (or filter) is linked already under the group and provider;
 * undefined then (the unique indexes decide, so two concurrent creates cannot both succeed).
 */
export async function insertLink(
  db: Queryable,
  l: { groupId: number; cn: string | null; filter: string | null; groupAccess: number; provider: string },
): Promise<LinkRow | undefined> {
  const { rows } = await db.query<LinkRow>(
    `INSERT INTO ldap_group_links (group_id, cn, filter, group_access, provider) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [l.groupId, l.cn, l.filter, l.groupAccess, l.provider],
  );
  return rows[0];
}

/**
 * Deletes one link and says whether there was one: by cn under any provider (the first made), by
 * cn and provider, or by filter and provider.
 */
export async function deleteLink(
  db: Queryable,
  groupId: number,
  by: { cn?: string; filter?: string; provider?: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM ldap_group_links WHERE id = (
       SELECT id FROM ldap_group_links
        WHERE group_id = $1
          AND ($2::text IS NULL OR cn = $2) AND ($3::text IS NULL OR filter = $3)
          AND ($4::text IS NULL OR provider = $4)
        ORDER BY id LIMIT 1)`,
    [groupId, by.cn ?? null, by.filter ?? null, by.provider ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Groups with a cn link of `provider` naming one of `cns` (case-insensitive): first sign-in's syncs. */
export async function groupsLinkedToCns(db: Queryable, provider: string, cns: string[]): Promise<number[]> {
  if (!cns.length) return [];
  const { rows } = await db.query<{ group_id: number }>(
    `SELECT DISTINCT group_id::int FROM ldap_group_links
      WHERE provider = $1 AND cn IS NOT NULL AND lower(cn) = ANY($2::text[])`,
    [provider, cns.map((c) => c.toLowerCase())],
  );
  return rows.map((r) => r.group_id);
}
