import { z } from "zod";
import { entityRegistry } from "../entities/schemas";

/**
 * zod schemas as JSON Schema 2020-12 (what OpenAPI 3.1 uses), by zod's own converter. Response
 * entities registered in entities/schemas become `#/components/schemas/<id>` references, so the
 * document holds each entity once and every operation points at it.
 */

export type JsonSchema = { [key: string]: unknown };

export const componentRef = (id: string) => `#/components/schemas/${id}`;

/**
 * Where zod has no JSON Schema (transforms, instanceof) it gives `{}`; a union of such parts is
 * `anyOf: [{}, {}]`, which says nothing: dropped, leaving what the schema's `.meta()` says instead.
 */
const dropEmptyUnions = (ctx: { jsonSchema: JsonSchema }) => {
  const anyOf = ctx.jsonSchema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.every((s) => Object.keys(s).length === 0)) delete ctx.jsonSchema.anyOf;
};

/** `#/$defs/<id>` (zod's place for named schemas) as the document's component reference. */
function refsToComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(refsToComponents);
  if (value === null || typeof value !== "object") return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "$defs" || k === "$schema" || k === "$id") continue;
    out[k] =
      k === "$ref" && typeof v === "string"
        ? v.replace(/^#\/\$defs\//, "#/components/schemas/")
        : refsToComponents(v);
  }
  return out;
}

/** A response body's schema: a registered entity by reference, anything else inline. */
export function responseSchemaOf(schema: z.ZodType): JsonSchema {
  const id = entityRegistry.get(schema)?.id;
  if (id) return { $ref: componentRef(id) };
  const converted = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "output",
    metadata: entityRegistry,
  });
  return refsToComponents(converted) as JsonSchema;
}

/** The declared parameters as one object schema (`properties` and `required`), as a client sends them. */
export function parameterSchemaOf(shape: z.ZodRawShape): JsonSchema {
  // Parameters are read with Grape's coercions (http/params.ts): their output types are what a
  // client means to send ("true" in a query string is a boolean); transforms say so in `.meta()`.
  const converted = z.toJSONSchema(z.object(shape), {
    target: "draft-2020-12",
    io: "output",
    unrepresentable: "any",
    override: dropEmptyUnions,
  });
  return refsToComponents(converted) as JsonSchema;
}

/** Every registered entity, as the document's `components.schemas`. */
export function entityComponents(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(entityRegistry, {
    target: "draft-2020-12",
    io: "output",
    uri: componentRef,
  });
  return refsToComponents(schemas) as Record<string, JsonSchema>;
}
