import type { Queryable } from "@canopy/kit";
import { lockTreesOf, NAMESPACE_COLUMNS, type GroupColumns, type NamespaceRow } from "./namespaces";

/**
 * Descendants of a namespace whose traversal is T are the rows with T < traversal_ids < T', T' being
 * T with its last element plus one: one range scan of the traversal_ids index (see 0001).
 */
const DESCENDANTS = "d.traversal_ids > $1::bigint[] AND d.traversal_ids < $2::bigint[]";
const rangeOf = (traversal: number[]) => [
  traversal,
  [...traversal.slice(0, -1), traversal[traversal.length - 1]! + 1],
];

/** Locks the tree the group is in (see lockTreesOf) and reads the group again under the lock. */
export async function lockTreeOfGroup(tx: Queryable, id: number): Promise<NamespaceRow | undefined> {
  return (await lockTreesOf(tx, [id]))[0];
}

/** The highest visibility among the group's direct subgroups, or undefined without any. */
export async function highestChildVisibility(db: Queryable, id: number): Promise<number | undefined> {
  const { rows } = await db.query<{ level: number | null }>(
    "SELECT max(visibility_level)::int AS level FROM namespaces WHERE parent_id = $1 AND kind = 'group'",
    [id],
  );
  return rows[0]?.level ?? undefined;
}

/**
 * Writes the given columns of one group (and updated_at); answers the row as it now is. Column names
 * come from the GroupColumns type, never from a request.
 */
export async function updateGroupColumns(
  db: Queryable,
  id: number,
  columns: GroupColumns & Partial<Pick<NamespaceRow, "full_path" | "full_name">>,
): Promise<NamespaceRow> {
  const names = (Object.keys(columns) as (keyof typeof columns)[]).filter((c) => columns[c] !== undefined);
  const values: unknown[] = [id, ...names.map((c) => columns[c])];
  const sets = names.map((c, i) => `${c} = $${i + 2}`);
  const { rows } = await db.query<NamespaceRow>(
    `UPDATE namespaces AS n SET ${[...sets, "updated_at = now()"].join(", ")}
      WHERE n.id = $1 RETURNING ${NAMESPACE_COLUMNS}`,
    values,
  );
  return rows[0]!;
}

/**
 * After a rename of the group at `traversal`: every descendant's full path and full name take the
 * group's new ones as their prefix, in one statement (the caller holds the root's lock).
 */
export async function rewriteDescendantRoutes(
  db: Queryable,
  traversal: number[],
  old: { fullPath: string; fullName: string },
  next: { fullPath: string; fullName: string },
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE namespaces d
        SET full_path = $3::text || substr(d.full_path, length($4::text) + 1),
            full_name = $5::text || substr(d.full_name, length($6::text) + 1)
      WHERE ${DESCENDANTS}`,
    [...rangeOf(traversal), next.fullPath, old.fullPath, next.fullName, old.fullName],
  );
  return rowCount ?? 0;
}

/** share_with_group_lock turned on reaches every descendant (GitLab's force_share_with_group_lock_on_descendants). */
export async function lockSharingBelow(db: Queryable, traversal: number[]): Promise<void> {
  await db.query(
    `UPDATE namespaces d SET share_with_group_lock = true WHERE ${DESCENDANTS} AND NOT d.share_with_group_lock`,
    rangeOf(traversal),
  );
}

/**
 * Shared runners closed on a group reach its descendants (see sharedRunnersBelow): those whose
 * setting is `from` ("any": every one not already `to`) take `to`, in one statement.
 */
export async function closeSharedRunnersBelow(
  db: Queryable,
  traversal: number[],
  change: { from: "any" | "enabled"; to: string },
): Promise<void> {
  await db.query(
    `UPDATE namespaces d SET shared_runners_setting = $3
      WHERE ${DESCENDANTS} AND d.shared_runners_setting <> $3
        AND ($4::text = 'any' OR d.shared_runners_setting = $4::text)`,
    [...rangeOf(traversal), change.to, change.from],
  );
}

/**
 * No group below the one at `traversal` (and, with `withSelf`, not it either) requires two-factor
 * authentication any more: its top-level group forbids it (GitLab's DisallowTwoFactorForSubgroupsWorker,
 * done here in the same transaction as the change that calls for it).
 */
export async function disallowTwoFactor(
  db: Queryable,
  traversal: number[],
  { withSelf }: { withSelf: boolean },
): Promise<void> {
  await db.query(
    `UPDATE namespaces d SET require_two_factor_authentication = false
      WHERE (${DESCENDANTS} OR ($3::boolean AND d.id = $4)) AND d.require_two_factor_authentication`,
    [...rangeOf(traversal), withSelf, traversal[traversal.length - 1]],
  );
}

/** Whether the top-level group `rootId` lets its subgroups require two-factor authentication. */
export async function rootAllowsTwoFactor(db: Queryable, rootId: number): Promise<boolean> {
  const { rows } = await db.query<{ allowed: boolean }>(
    "SELECT allow_mfa_for_subgroups AS allowed FROM namespaces WHERE id = $1",
    [rootId],
  );
  return rows[0]?.allowed ?? true;
}
