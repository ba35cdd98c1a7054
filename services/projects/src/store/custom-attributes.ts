import { customAttributesStore, type Queryable } from "@canopy/kit";

/** A project's custom attributes (migration 0003's project_custom_attributes). */
export const { findCustomAttributes, findCustomAttribute, upsertCustomAttribute, deleteCustomAttribute } =
  customAttributesStore({ table: "project_custom_attributes", ownerColumn: "project_id" });

/**
 * The custom attributes of several projects, by project id (lists with_custom_attributes), in
 * creation order as a key-value object (the groups list keeps its own, different answer: pairs
 * ordered by key, groups' store/group-lists.ts).
 */
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
