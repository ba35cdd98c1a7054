import { z } from "zod";
import { paramError } from "./errors";
import { UploadedFile } from "./multipart";

/**
 * Request parameters as Grape declares and coerces them, with Grape's error messages:
 * "<name> is missing", "<name> is invalid", "<name> does not have a valid value", joined by ", ".
 * Query string, form body, JSON body and route params are merged first (as Grape does).
 */

const INTEGER = /^[-+]?\d+$/;
const TRUE = new Set(["true", "1", "t", "yes", "y", "on"]);
const FALSE = new Set(["false", "0", "f", "no", "n", "off"]);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const integer = z.preprocess(
  (v) => (typeof v === "string" && INTEGER.test(v.trim()) ? Number(v) : v),
  z.number().int().refine(Number.isSafeInteger),
);

/** gRPC int32 fields (page, per_page, projects_limit) cannot carry more: refuse, do not overflow. */
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** GitLab's `:id` of a group or project: its number, or its full path (`a%2Fb` in the URL). */
export type IdOrPath = { id: number; path?: undefined } | { path: string; id?: undefined };

const idOrPath = z
  .unknown()
  .transform((v, ctx): IdOrPath => {
    const text = typeof v === "number" ? String(v) : v;
    const invalid = () => {
      ctx.addIssue({ code: "custom", message: "invalid" });
      return z.NEVER;
    };
    if (typeof text !== "string" || text === "" || text.length > 4096 || text.includes("\u0000"))
      return invalid();
    if (INTEGER.test(text)) {
      const id = Number(text);
      return Number.isSafeInteger(id) && id > 0 ? { id } : invalid();
    }
    // A full path is segments joined by "/": no empty segment, so "a//b" and "/a" are not paths.
    return text.split("/").includes("") ? invalid() : { path: text };
  })
  .meta({
    // What a client sends, for the OpenAPI document (openapi/parameters.ts): the transform has no JSON Schema.
    description: "The id, or the URL-encoded full path (`a%2Fb`).",
    oneOf: [
      { type: "integer", minimum: 1 },
      { type: "string", minLength: 1, maxLength: 4096 },
    ],
  });

/**
 * A multipart file part (Grape's `File` type): the file, or `null` for an empty value, which asks
 * to clear what is there (`avatar=` removes an avatar). Text, numbers, several files: invalid.
 */
const fileSchemas = new WeakSet<z.ZodTypeAny>();
const file = () => {
  const schema = z
    .union([z.instanceof(UploadedFile), z.literal("").transform(() => null)])
    .meta({ description: "A file part; empty to remove the file.", type: "string", format: "binary" });
  fileSchemas.add(schema);
  return schema;
};

/** True when the declared parameter takes file parts (optional or not). */
export function isFileParam(schema: z.ZodTypeAny | undefined): boolean {
  if (!schema) return false;
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodTypeAny) : schema;
  return fileSchemas.has(inner);
}

export const param = {
  /** A file part of a multipart body, or empty to clear (see `file` above). */
  file,
  /**
   * Text; numbers given in JSON are taken as their text, as Grape does. A NUL byte is refused here
   * (GitLab's HandleNullBytes middleware answers 400 too): PostgreSQL cannot store or compare it.
   */
  string: (max = 10_000) =>
    z.preprocess(
      (v) => (typeof v === "number" ? String(v) : v),
      z
        .string()
        .max(max)
        .refine((s) => !s.includes("\u0000")),
    ),
  integer: () => integer,
  /** An integer that fits a gRPC int32 field. */
  int32: () => integer.refine((n) => n >= INT32_MIN && n <= INT32_MAX),
  /** An integer id: positive, within PostgreSQL's bigint and JavaScript's safe range. */
  id: () => integer.refine((n) => n > 0),
  /** A number or a URL-encoded full path (`42`, `a%2Fb`), as GitLab's `:id` of groups and projects. */
  idOrPath: () => idOrPath,
  boolean: () =>
    z.preprocess((v) => {
      if (typeof v !== "string") return v;
      const s = v.trim().toLowerCase();
      return TRUE.has(s) ? true : FALSE.has(s) ? false : v;
    }, z.boolean()),
  oneOf: <T extends string>(values: readonly [T, ...T[]]) => z.enum(values),
  /** YYYY-MM-DD that is a real calendar date. */
  date: () =>
    z
      .string()
      .regex(DATE)
      .refine((s) => {
        const d = new Date(`${s}T00:00:00Z`);
        return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
      }),
  /** `a[]=x&a[]=y`, a JSON array, or the comma form `a=x,y`. */
  array: <T extends z.ZodTypeAny>(item: T) =>
    z.preprocess((v) => (typeof v === "string" ? v.split(",").filter(Boolean) : v), z.array(item).max(100)),
};

function messageFor(issue: z.core.$ZodIssue, present: boolean): string {
  if (!present) return "is missing";
  if (issue.code === "invalid_value") return "does not have a valid value";
  if (issue.code === "too_big" && issue.origin === "string")
    return `must be at the most ${issue.maximum} characters long`;
  return "is invalid";
}

/**
 * Each declaration's object schema, built once: building one costs ~60 µs, more than the rest of a
 * cached GET /user, while a declaration's shape is a constant that lives as long as the process.
 */
const objectSchemas = new WeakMap<z.ZodRawShape, z.ZodObject>();
const objectSchemaOf = <S extends z.ZodRawShape>(shape: S): z.ZodObject<S> => {
  let schema = objectSchemas.get(shape);
  if (!schema) objectSchemas.set(shape, (schema = z.object(shape)));
  return schema as z.ZodObject<S>;
};

/** Parses merged params against a declaration; throws Grape's 400 `{"error": ...}` on failure. */
export function parseParams<S extends z.ZodRawShape>(
  shape: S,
  raw: Record<string, unknown>,
): z.infer<z.ZodObject<S>> {
  const result = objectSchemaOf(shape).safeParse(raw);
  if (result.success) return result.data;
  const messages: string[] = [];
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? "");
    const present = raw[name] !== undefined && raw[name] !== null;
    const text = `${name} ${messageFor(issue, present)}`;
    if (!messages.includes(text)) messages.push(text);
  }
  throw paramError(messages.join(", "));
}

/** Node's query parser gives `a[]` as its own key; Grape treats `a[]` and `a` alike. */
export function normalizeKeys(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key.endsWith("[]")) out[key.slice(0, -2)] = Array.isArray(value) ? value : [value];
    else out[key] = value;
  }
  return out;
}
