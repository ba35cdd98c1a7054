import { customAttributesStore } from "@canopy/kit";

/** A group's custom attributes (migration 0001's custom_attributes, by namespace). */
export const { findCustomAttributes, findCustomAttribute, upsertCustomAttribute, deleteCustomAttribute } =
  customAttributesStore({ table: "custom_attributes", ownerColumn: "namespace_id" });
