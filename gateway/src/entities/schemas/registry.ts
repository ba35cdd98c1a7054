import { z } from "zod";

/**
 * The one registry of response entity schemas. Each schema registered here is a named component of
 * the OpenAPI document (openapi/document.ts), and the entity builders beside take their return types
 * from it (`z.infer`), so a key the builder adds or drops without the schema is a compile error.
 */
export const entityRegistry = z.registry<{ id: string; description?: string }>();

/** Registers `schema` under `id` (its component name) and returns it unchanged. */
export const entity = <T extends z.ZodType>(id: string, description: string, schema: T): T => {
  entityRegistry.add(schema as z.ZodType, { id, description });
  return schema;
};

/** GitLab's timestamps: ISO 8601 in UTC with milliseconds (`Date#toISOString`). */
export const timestamp = z.iso.datetime();
/** A calendar day, YYYY-MM-DD (expires_at and friends). */
export const day = z.iso.date();
export const integer = z.number().int();
export const url = z.url();
export const visibility = z.enum(["private", "internal", "public"]);
/** GitLab's user states (User#state). */
export const userState = z.enum([
  "active",
  "blocked",
  "deactivated",
  "ldap_blocked",
  "banned",
  "blocked_pending_approval",
]);

export const CustomAttribute = entity(
  "CustomAttribute",
  "A custom attribute of a group, project or user (administrators only).",
  z.object({ key: z.string(), value: z.string() }),
);

/** A JSON array of `item`s, as every list endpoint answers. */
export const listOf = <T extends z.ZodType>(item: T) => z.array(item);
