import type { Queryable } from "@canopy/kit";

/** One row of `namespaces`, column for column (see migrations/0001_namespaces.sql). */
export interface NamespaceRow {
  id: number;
  kind: "group" | "user";
  owner_id: number | null;
  parent_id: number | null;
  traversal_ids: number[];
  path: string;
  name: string;
  full_path: string;
  full_name: string;
  description: string;
  visibility_level: number;
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  /** Top-level groups only: false forbids subgroups to require 2FA (migration 0010). */
  allow_mfa_for_subgroups: boolean;
  project_creation_level: number;
  subgroup_creation_level: number;
  auto_devops_enabled: boolean | null;
  emails_disabled: boolean | null;
  mentions_disabled: boolean | null;
  lfs_enabled: boolean;
  request_access_enabled: boolean;
  default_branch_protection: number;
  membership_lock: boolean;
  prevent_forking_outside_group: boolean;
  prevent_sharing_groups_outside_hierarchy: boolean;
  shared_runners_setting: string;
  shared_runners_minutes_limit: number | null;
  extra_shared_runners_minutes_limit: number | null;
  file_template_project_id: number | null;
  runners_token_encrypted: Buffer | null;
  avatar_filename: string | null;
  /** "YYYY-MM-DD" (the column is read as text, see below). */
  marked_for_deletion_on: string | null;
  deletion_scheduled_by_id: number | null;
  /** Removal requested and not yet done: the group and its subtree answer 404 (migration 0004). */
  pending_removal: boolean;
  created_at: Date;
  updated_at: Date;
}

/** Every column, with the date as text: a `date` read through pg becomes a local-midnight Date. */
export const NAMESPACE_COLUMNS = `n.*, to_char(n.marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on`;

/** Group settings a create or update may write. */
export type GroupColumns = Partial<
  Omit<
    NamespaceRow,
    | "id"
    | "kind"
    | "owner_id"
    | "parent_id"
    | "traversal_ids"
    | "full_path"
    | "full_name"
    | "pending_removal"
    | "created_at"
    | "updated_at"
  >
>;

export async function findNamespaceById(db: Queryable, id: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>({
    name: "groups-namespace-by-id",
    text: `SELECT ${NAMESPACE_COLUMNS} FROM namespaces n WHERE n.id = $1`,
    values: [id],
  });
  return rows[0];
}

/** By full path, case-insensitively (GitLab matches LOWER(routes.path)). */
export async function findNamespaceByPath(
  db: Queryable,
  fullPath: string,
): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>({
    name: "groups-namespace-by-path",
    text: `SELECT ${NAMESPACE_COLUMNS} FROM namespaces n WHERE lower(n.full_path) = lower($1)`,
    values: [fullPath],
  });
  return rows[0];
}

/** True when the full path is taken by any namespace (a group or a user's), case-insensitively. */
/**
 * Where a new group would go: whether its full path is taken by a group, or its path by a project of
 * its parent (they share the parent's routes), and the id it gets (taken now: its runners token is
 * sealed for it before the insert). One round trip.
 */
export async function newGroupPlace(
  db: Queryable,
  fullPath: string,
  parentId: number | undefined,
  path: string,
): Promise<{ taken: boolean; id: number }> {
  const { rows } = await db.query<{ taken: boolean; id: number }>({
    name: "groups-new-group-place",
    text: `SELECT EXISTS (SELECT 1 FROM namespaces WHERE lower(full_path) = lower($1))
               OR EXISTS (SELECT 1 FROM projects WHERE namespace_id = $2 AND lower(path) = lower($3)) AS taken,
             nextval(pg_get_serial_sequence('namespaces', 'id')) AS id`,
    values: [fullPath, parentId ?? null, path],
  });
  return rows[0]!;
}

export async function fullPathTaken(db: Queryable, fullPath: string, exceptId = 0): Promise<boolean> {
  const { rows } = await db.query({
    name: "groups-full-path-taken",
    text: "SELECT 1 FROM namespaces WHERE lower(full_path) = lower($1) AND id <> $2",
    values: [fullPath, exceptId],
  });
  return rows.length > 0;
}

/**
 * Locks the trees the namespaces `ids` are in and returns the rows read again under those locks
 * (undefined for an id that does not exist): the locks that order every structural change of a tree
 * (create, rename, transfer, share, membership rules, delete) are its root's row, FOR UPDATE, several
 * roots always in id order. The roots are first locked as the statement reads them; a transfer may
 * have moved one of the namespaces into another tree meanwhile: the locks are then let go (ROLLBACK
 * TO SAVEPOINT releases them) and the roots read again taken, so no transaction ever waits for a
 * root while holding a later one. Two round trips when nothing moved.
 */
export async function lockTreesOf(tx: Queryable, ids: number[]): Promise<(NamespaceRow | undefined)[]> {
  const wanted = ids.map((id) => Math.trunc(Number(id)));
  // The savepoint and the locks in one round trip (a simple query: the ids inlined, integers).
  const { 1: locked } = (await tx.query(
    `SAVEPOINT canopy_tree_locks;
     SELECT id FROM namespaces
      WHERE id IN (SELECT traversal_ids[1] FROM namespaces WHERE id = ANY('{${wanted.join(",")}}'::bigint[]))
      ORDER BY id FOR UPDATE`,
  )) as unknown as { rows: { id: number | string }[] }[];
  let roots = locked!.rows.map((r) => Number(r.id));
  for (;;) {
    const fresh = await findNamespacesByIds(tx, wanted);
    if (fresh.every((r) => !r || roots.includes(r.traversal_ids[0]!))) return fresh;
    await tx.query("ROLLBACK TO SAVEPOINT canopy_tree_locks");
    roots = [...new Set(fresh.flatMap((r) => (r ? [r.traversal_ids[0]!] : [])))];
    await tx.query({
      name: "groups-lock-roots",
      text: "SELECT 1 FROM namespaces WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE",
      values: [roots],
    });
  }
}

/** The rows of `ids`, in their order (undefined for one that does not exist). */
async function findNamespacesByIds(db: Queryable, ids: number[]): Promise<(NamespaceRow | undefined)[]> {
  const { rows } = await db.query<NamespaceRow>({
    name: "groups-namespaces-by-ids",
    text: `SELECT ${NAMESPACE_COLUMNS} FROM namespaces n WHERE n.id = ANY($1::bigint[])`,
    values: [ids],
  });
  return ids.map((id) => rows.find((r) => Number(r.id) === id));
}

const SETTABLE: (keyof GroupColumns)[] = [
  "path",
  "name",
  "description",
  "visibility_level",
  "share_with_group_lock",
  "require_two_factor_authentication",
  "two_factor_grace_period",
  "allow_mfa_for_subgroups",
  "project_creation_level",
  "subgroup_creation_level",
  "auto_devops_enabled",
  "emails_disabled",
  "mentions_disabled",
  "lfs_enabled",
  "request_access_enabled",
  "default_branch_protection",
  "membership_lock",
  "prevent_forking_outside_group",
  "prevent_sharing_groups_outside_hierarchy",
  "shared_runners_setting",
  "shared_runners_minutes_limit",
  "extra_shared_runners_minutes_limit",
  "file_template_project_id",
  "runners_token_encrypted",
];

/**
 * Inserts a group under `parent` (or at the top), with its traversal_ids, full path and full name
 * computed from the parent in the same statement. The caller holds the root lock (lockTreesOf).
 */
export async function insertGroup(
  db: Queryable,
  parent: Pick<NamespaceRow, "id" | "traversal_ids" | "full_path" | "full_name"> | undefined,
  columns: GroupColumns & { path: string; name: string },
  /** Taken before (newGroupPlace), when the row's other columns depend on it. */
  id?: number,
): Promise<NamespaceRow> {
  const names = SETTABLE.filter((c) => columns[c] !== undefined);
  const values: unknown[] = names.map((c) => columns[c]);
  const at = (v: unknown) => `$${values.push(v)}`;
  const idSql =
    id === undefined ? "nextval(pg_get_serial_sequence('namespaces', 'id'))" : `${at(id)}::bigint`;
  const { rows } = await db.query<NamespaceRow>(
    `WITH new AS (SELECT ${idSql} AS id)
     INSERT INTO namespaces AS n (id, kind, parent_id, traversal_ids, full_path, full_name, ${names.join(", ")})
     SELECT new.id, 'group', ${at(parent?.id ?? null)}::bigint,
       ${at(parent?.traversal_ids ?? [])}::bigint[] || new.id,
       ${at(parent ? `${parent.full_path}/${columns.path}` : columns.path)},
       ${at(parent ? `${parent.full_name} / ${columns.name}` : columns.name)},
       ${names.map((_, i) => `$${i + 1}`).join(", ")}
     FROM new
     RETURNING ${NAMESPACE_COLUMNS}`,
    values,
  );
  return rows[0]!;
}
