import type { Queryable } from "@canopy/kit";

export interface CustomAttributeRow {
  key: string;
  value: string;
}

/** A group's custom attributes, oldest first (GitLab answers them in creation order). */
export async function findCustomAttributes(
  db: Queryable,
  namespaceId: number,
): Promise<CustomAttributeRow[]> {
  const { rows } = await db.query<CustomAttributeRow>(
    `SELECT key, value FROM custom_attributes WHERE namespace_id = $1 ORDER BY created_at, key`,
    [namespaceId],
  );
  return rows;
}

export async function findCustomAttribute(
  db: Queryable,
  namespaceId: number,
  key: string,
): Promise<CustomAttributeRow | undefined> {
  const { rows } = await db.query<CustomAttributeRow>(
    `SELECT key, value FROM custom_attributes WHERE namespace_id = $1 AND key = $2`,
    [namespaceId, key],
  );
  return rows[0];
}

/** Creates the attribute or replaces its value (one statement, so two racing PUTs cannot clash). */
export async function upsertCustomAttribute(
  db: Queryable,
  namespaceId: number,
  key: string,
  value: string,
): Promise<CustomAttributeRow> {
  const { rows } = await db.query<CustomAttributeRow>(
    `INSERT INTO custom_attributes (namespace_id, key, value) VALUES ($1, $2, $3)
     ON CONFLICT (namespace_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
     RETURNING key, value`,
    [namespaceId, key, value],
  );
  return rows[0]!;
}

/** Removes the attribute; undefined when there was none. */
export async function deleteCustomAttribute(
  db: Queryable,
  namespaceId: number,
  key: string,
): Promise<CustomAttributeRow | undefined> {
  const { rows } = await db.query<CustomAttributeRow>(
    `DELETE FROM custom_attributes WHERE namespace_id = $1 AND key = $2 RETURNING key, value`,
    [namespaceId, key],
  );
  return rows[0];
}
