import type { Queryable } from "@canopy/kit";

export interface CustomAttributeRow {
  key: string;
  value: string;
}

/** A project's custom attributes, oldest first (GitLab answers them in creation order). */
export async function findCustomAttributes(db: Queryable, projectId: number): Promise<CustomAttributeRow[]> {
  const { rows } = await db.query<CustomAttributeRow>(
    `SELECT key, value FROM project_custom_attributes WHERE project_id = $1 ORDER BY created_at, key`,
    [projectId],
  );
  return rows;
}

export async function findCustomAttribute(
  db: Queryable,
  projectId: number,
  key: string,
): Promise<CustomAttributeRow | undefined> {
  const { rows } = await db.query<CustomAttributeRow>(
    `SELECT key, value FROM project_custom_attributes WHERE project_id = $1 AND key = $2`,
    [projectId, key],
  );
  return rows[0];
}

/** Creates the attribute or replaces its value (one statement, so two racing PUTs cannot clash). */
export async function upsertCustomAttribute(
  db: Queryable,
  projectId: number,
  key: string,
  value: string,
): Promise<CustomAttributeRow> {
  const { rows } = await db.query<CustomAttributeRow>(
    `INSERT INTO project_custom_attributes (project_id, key, value) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
     RETURNING key, value`,
    [projectId, key, value],
  );
  return rows[0]!;
}

export async function deleteCustomAttribute(
  db: Queryable,
  projectId: number,
  key: string,
): Promise<CustomAttributeRow | undefined> {
  const { rows } = await db.query<CustomAttributeRow>(
    `DELETE FROM project_custom_attributes WHERE project_id = $1 AND key = $2 RETURNING key, value`,
    [projectId, key],
  );
  return rows[0];
}

/** The custom attributes of several projects, by project id (lists with_custom_attributes). */
export async function customAttributesOf(
  db: Queryable,
  projectIds: number[],
): Promise<Map<number, Record<string, string>>> {
  const { rows } = await db.query<{ project_id: number; key: string; value: string }>(
    `SELECT project_id::int, key, value FROM project_custom_attributes WHERE project_id = ANY($1::bigint[])
      ORDER BY created_at, key`,
    [projectIds],
  );
  const byProject = new Map<number, Record<string, string>>();
  for (const r of rows) {
    const values = byProject.get(r.project_id) ?? {};
    values[r.key] = r.value;
    byProject.set(r.project_id, values);
  }
  return byProject;
}
