import type { Queryable } from "@canopy/kit";
import type { PushRuleValues } from "../domain/push-rules";

/** One row of `push_rules` (see migrations/0001_namespaces.sql). */
export interface PushRuleRow extends PushRuleValues {
  id: number;
  namespace_id: number;
  created_at: Date;
  updated_at: Date;
}

/** The writable columns, in one order for INSERT and UPDATE. */
const VALUE_COLUMNS = [
  "commit_message_regex",
  "commit_message_negative_regex",
  "branch_name_regex",
  "author_email_regex",
  "file_name_regex",
  "deny_delete_tag",
  "member_check",
  "prevent_secrets",
  "max_file_size",
  "commit_committer_check",
  "commit_committer_name_check",
  "reject_unsigned_commits",
  "reject_non_dco_commits",
] as const satisfies readonly (keyof PushRuleValues)[];

const valuesOf = (v: PushRuleValues) => VALUE_COLUMNS.map((c) => v[c]);

/** The group's push rule; `forUpdate` locks it until the transaction ends. */
export async function findPushRule(
  db: Queryable,
  namespaceId: number,
  options: { forUpdate?: boolean } = {},
): Promise<PushRuleRow | undefined> {
  const { rows } = await db.query<PushRuleRow>(
    `SELECT * FROM push_rules WHERE namespace_id = $1${options.forUpdate ? " FOR UPDATE" : ""}`,
    [namespaceId],
  );
  return rows[0];
}

/** Inserts the group's rule; undefined when it already has one (a concurrent create won). */
export async function insertPushRule(
  db: Queryable,
  namespaceId: number,
  values: PushRuleValues,
): Promise<PushRuleRow | undefined> {
  const placeholders = VALUE_COLUMNS.map((_, i) => `$${i + 2}`).join(", ");
  const { rows } = await db.query<PushRuleRow>(
    `INSERT INTO push_rules (namespace_id, ${VALUE_COLUMNS.join(", ")}) VALUES ($1, ${placeholders})
     ON CONFLICT (namespace_id) DO NOTHING RETURNING *`,
    [namespaceId, ...valuesOf(values)],
  );
  return rows[0];
}

export async function updatePushRule(
  db: Queryable,
  id: number,
  values: PushRuleValues,
): Promise<PushRuleRow> {
  const sets = VALUE_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(", ");
  const { rows } = await db.query<PushRuleRow>(
    `UPDATE push_rules SET ${sets}, updated_at = now() WHERE id = $1 RETURNING *`,
    [id, ...valuesOf(values)],
  );
  return rows[0]!;
}

/** Whether the rule changed after `at`, compared in PostgreSQL at its full (microsecond) precision. */
export async function changedSince(db: Queryable, id: number, at: Date): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>(
    "SELECT updated_at > $2::timestamptz AS changed FROM push_rules WHERE id = $1",
    [id, at],
  );
  return Boolean(rows[0]?.changed);
}

export async function deletePushRule(db: Queryable, id: number): Promise<void> {
  await db.query("DELETE FROM push_rules WHERE id = $1", [id]);
}

/**
 * Gives a new group a copy of the push rule nearest to it among `ancestorIds` (root first, so
 * the last one that has a rule wins). Undefined when none of them has one.
 */
export async function copyNearestPushRule(
  db: Queryable,
  namespaceId: number,
  ancestorIds: number[],
): Promise<PushRuleRow | undefined> {
  const columns = VALUE_COLUMNS.join(", ");
  const { rows } = await db.query<PushRuleRow>(
    `INSERT INTO push_rules (namespace_id, ${columns})
     SELECT $1, ${columns} FROM push_rules
      WHERE namespace_id = ANY($2::bigint[])
      ORDER BY array_position($2::bigint[], namespace_id) DESC
      LIMIT 1
     ON CONFLICT (namespace_id) DO NOTHING
     RETURNING *`,
    [namespaceId, ancestorIds],
  );
  return rows[0];
}
