import type { Queryable } from "../db";

/*
 * The custom attributes of one kind of owner (GitLab's CustomAttributesEndpoints: groups, projects),
 * each kept by its service in a table of its own schema with the same shape: the owner's id, `key`,
 * `value`, `created_at`, `updated_at`, unique on (owner, key). Only the table's and the owner
 * column's names differ, so each service binds the same statements to its own (a constant, never
 * input: they are written into the SQL).
 */

export interface CustomAttributeRow {
  key: string;
  value: string;
}

export interface CustomAttributesTable {
  /** `custom_attributes`, `project_custom_attributes`, ... */
  table: string;
  /** The column naming the owner: `namespace_id`, `project_id`, ... */
  ownerColumn: string;
}

export interface CustomAttributesStore {
  /** An owner's custom attributes, oldest first (GitLab answers them in creation order). */
  findCustomAttributes(db: Queryable, ownerId: number): Promise<CustomAttributeRow[]>;
  findCustomAttribute(db: Queryable, ownerId: number, key: string): Promise<CustomAttributeRow | undefined>;
  /** Creates the attribute or replaces its value (one statement, so two racing PUTs cannot clash). */
  upsertCustomAttribute(
    db: Queryable,
    ownerId: number,
    key: string,
    value: string,
  ): Promise<CustomAttributeRow>;
  /** Removes the attribute; undefined when there was none. */
  deleteCustomAttribute(db: Queryable, ownerId: number, key: string): Promise<CustomAttributeRow | undefined>;
}

export function customAttributesStore({
  table,
  ownerColumn: owner,
}: CustomAttributesTable): CustomAttributesStore {
  return {
    async findCustomAttributes(db, ownerId) {
      const { rows } = await db.query<CustomAttributeRow>(
        `SELECT key, value FROM ${table} WHERE ${owner} = $1 ORDER BY created_at, key`,
        [ownerId],
      );
      return rows;
    },

    async findCustomAttribute(db, ownerId, key) {
      const { rows } = await db.query<CustomAttributeRow>(
        `SELECT key, value FROM ${table} WHERE ${owner} = $1 AND key = $2`,
        [ownerId, key],
      );
      return rows[0];
    },

    async upsertCustomAttribute(db, ownerId, key, value) {
      const { rows } = await db.query<CustomAttributeRow>(
        `INSERT INTO ${table} (${owner}, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (${owner}, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
         RETURNING key, value`,
        [ownerId, key, value],
      );
      return rows[0]!;
    },

    async deleteCustomAttribute(db, ownerId, key) {
      const { rows } = await db.query<CustomAttributeRow>(
        `DELETE FROM ${table} WHERE ${owner} = $1 AND key = $2 RETURNING key, value`,
        [ownerId, key],
      );
      return rows[0];
    },
  };
}
