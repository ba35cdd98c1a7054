import { customAttributesStore, type CustomAttributeRow, type Queryable } from "@canopy/kit";

/** A user's custom attributes (migration 0010's user_custom_attributes, by user). */
export const { findCustomAttributes, findCustomAttribute, upsertCustomAttribute, deleteCustomAttribute } =
  customAttributesStore({ table: "user_custom_attributes", ownerColumn: "user_id" });

/** The custom attributes of each of these users, oldest first (users without any are absent). */
export async function findCustomAttributesOf(db: Queryable, userIds: number[]) {
  const { rows } = await db.query<CustomAttributeRow & { user_id: string }>(
    "SELECT user_id, key, value FROM user_custom_attributes WHERE user_id = ANY($1) ORDER BY created_at, key",
    [userIds],
  );
  const byUser = new Map<number, CustomAttributeRow[]>();
  for (const { user_id, key, value } of rows) {
    const list = byUser.get(Number(user_id)) ?? [];
    list.push({ key, value });
    byUser.set(Number(user_id), list);
  }
  return byUser;
}
