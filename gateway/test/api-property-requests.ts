/**
 * One malformed request for one declared endpoint (routes/api.ts), drawn with fast-check's `gen`
 * for the whole-API property fuzz (api-property-fuzz.test.ts). Each declared parameter travels in
 * the path, the query string or a body (JSON, form, multipart), with a plausible or malformed value;
 * undeclared keys, duplicate keys, `a[]` forms and bodies of the wrong type come on top.
 *
 * A write must not happen: when `poison` is asked for, one declared parameter is given a value its
 * own schema refuses *as the gateway will see it* (decoded from the path, parsed from the query, as
 * JSON), and no other part of the request carries that name, so the parameter check (which runs
 * before every handler, http/mount-endpoints.ts) answers 400. An endpoint without parameters cannot
 * be poisoned: the caller then sends an unknown token instead (`bogusToken`).
 */
import fc from "fast-check";
import type { Endpoint } from "../src/http/endpoint";
import { normalizeKeys } from "../src/http/params";
import type { RequestOptions } from "./support";
import { malformedJson, malformedText, paramsOf, plausibleText, type ParamInfo } from "./api-property-values";

export interface FuzzRequest {
  method: string;
  /** Path and query string, encoded as sent. */
  path: string;
  options: RequestOptions;
  /** Send an unknown token instead of the role's (an unpoisonable write). */
  bogusToken: boolean;
}

export interface Draw {
  /** One declared parameter must be invalid (see above). */
  poison: boolean;
  /** Real values (URL-encoded path segments) for a path parameter, e.g. an existing group's id. */
  real: (e: Endpoint, name: string) => string[];
  /** Path parameters take only real values (a caller's write against someone else's resources). */
  realPathOnly: boolean;
}

/** encodeURIComponent, for lone surrogates too (which it refuses): those go as U+FFFD. */
const encode = (s: string) =>
  encodeURIComponent(
    s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"),
  );
/** As @koa/router decodes a path segment. */
const decodeSegment = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
/** As Koa parses the query string (koa/lib/search-params.js), then Grape's `a[]` as `a`. */
function parseQuery(pairs: string[]): Record<string, unknown> {
  const sp = new URLSearchParams(pairs.join("&"));
  const out: Record<string, unknown> = {};
  for (const key of new Set(sp.keys())) {
    const all = sp.getAll(key);
    Object.defineProperty(out, key, { value: all.length <= 1 ? all[0] : all, enumerable: true });
  }
  return normalizeKeys(out);
}

/** Percent-encodings that are not UTF-8, or not encodings at all. */
const RAW_ENCODINGS = ["%FF%FE", "%C0%AF", "%E2%82", "%G1", "%", "a%2F%2Fb", "%2F", "%EF%BF%BF", "%ED%A0%80"];
const JUNK_KEYS = [
  "unknown",
  "x[y][z]",
  "a[]",
  "%C0",
  "__proto__",
  "constructor",
  "page",
  "per_page",
  "order_by",
];

type Location = "path" | "query" | "json" | "form" | "multipart";
type BodyKind = "none" | "json" | "form" | "multipart" | "odd";

/** Draws one request for `e`; `g` is fast-check's generator, so every choice shrinks. */
export function drawRequest(g: fc.GeneratorValue, e: Endpoint, draw: Draw): FuzzRequest {
  const params = paramsOf(e.params as never);
  const pathNames = [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  const bodyKind: BodyKind =
    e.method === "GET"
      ? "none"
      : g(() => fc.constantFrom<BodyKind[]>("json", "form", "multipart", "odd", "none"));
  const poisoned = draw.poison && params.length ? g(fc.nat, params.length - 1) : -1;
  const poisonName = params[poisoned]?.name;
  const reads = e.method === "GET";
  const segments: Record<string, string> = {};
  const query: string[] = [];
  const json: [string, unknown][] = [];
  const fields: [string, string][] = [];

  for (const [i, p] of params.entries()) {
    const inPath = pathNames.includes(p.name);
    if (i === poisoned) {
      poison(g, p, inPath ? "path" : bodyKind === "json" && g(fc.boolean) ? "json" : "query", {
        segments,
        query,
        json,
      });
      continue;
    }
    if (inPath) {
      const real = draw.real(e, p.name);
      segments[p.name] =
        draw.realPathOnly && real.length
          ? g(() => fc.constantFrom(...real))
          : g(() => pathValue(p, real, reads));
      continue;
    }
    if (g(fc.nat, 3) === 0) continue; // left out
    const where: Location =
      bodyKind === "none" || bodyKind === "odd" || g(fc.nat, 3) === 0 ? "query" : bodyKind;
    // Reads are mostly plausible, so that they get past the parameter check to the handler's queries.
    const mostly = <T>(plausible: fc.Arbitrary<T>, malformed: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: plausible, weight: reads ? 8 : 1 }, { arbitrary: malformed, weight: 1 });
    if (where === "json") json.push([p.name, g(() => mostly<unknown>(plausibleText(p), malformedJson(p)))]);
    else {
      const text = g(() => mostly(plausibleText(p), malformedText(p, 2_000)));
      if (where === "query") query.push(...g(() => queryForms(p.name, text, reads)));
      else fields.push([p.name, text]);
    }
  }
  // Undeclared keys, never one that would stand in for the poisoned parameter.
  const clear = (key: string) => poisonName === undefined || key.replace(/[[.].*$/, "") !== poisonName;
  for (const key of g(fc.subarray, JUNK_KEYS.filter(clear), { maxLength: 2 }))
    query.push(
      `${encode(key)}=${g(() => fc.oneof({ arbitrary: fc.constant("1"), weight: 4 }, fc.constantFrom("%00", ...RAW_ENCODINGS)))}`,
    );
  if (bodyKind === "form")
    for (const key of g(fc.subarray, JUNK_KEYS.filter(clear), { maxLength: 2 })) fields.push([key, "1"]);

  const path = e.path.replace(/:([a-z_]+)/g, (_, name: string) => segments[name] ?? "1");
  const search = query.length ? `?${query.join("&")}` : "";
  const options = bodyOf(g, bodyKind, json, fields, e, poisonName);
  return {
    method: e.method,
    path: `/api/v4${path}${search}`,
    options,
    bogusToken: draw.poison && !params.length,
  };
}

/** A path segment: often a real one, else plausible or malformed text, or raw bad encodings. */
function pathValue(p: ParamInfo, real: string[], reads: boolean): fc.Arbitrary<string> {
  const text = fc.oneof(plausibleText(p), malformedText(p, 3_000)).map(encode);
  return fc
    .oneof(
      { arbitrary: real.length ? fc.constantFrom(...real) : text, weight: reads ? 3 : 1 },
      { arbitrary: text, weight: 1 },
      { arbitrary: fc.constantFrom(...RAW_ENCODINGS), weight: 1 },
    )
    .map(noDotSegment);
}

/** `.` and `..` (also as %2E) would be resolved by the URL before sending: another endpoint. */
const noDotSegment = (s: string) => (/^(\.|%2e){1,2}$/i.test(s) ? `x${s}` : s);

/** `name=v`, or (less often for reads) the array forms `name[]=v&name[]=w` and `name=v&name=w`. */
const queryForms = (name: string, text: string, reads = false) =>
  fc.oneof(
    { arbitrary: fc.constant<string[]>([`${encode(name)}=${encode(text)}`]), weight: reads ? 8 : 1 },
    {
      arbitrary: fc.constant<string[]>([`${encode(name)}[]=${encode(text)}`, `${encode(name)}[]=1`]),
      weight: 1,
    },
    { arbitrary: fc.constant<string[]>([`${encode(name)}=${encode(text)}`, `${encode(name)}=2`]), weight: 1 },
  );

/** Gives the parameter a value its schema refuses where it travels; NUL when nothing else would do. */
function poison(
  g: fc.GeneratorValue,
  p: ParamInfo,
  where: "path" | "query" | "json",
  into: { segments: Record<string, string>; query: string[]; json: [string, unknown][] },
) {
  const refused = (v: unknown) => !p.schema.safeParse(v).success;
  for (let attempt = 0; attempt < 8; attempt++) {
    if (where === "path") {
      const s = noDotSegment(
        g(() => fc.oneof(malformedText(p, 3_000).map(encode), fc.constantFrom(...RAW_ENCODINGS))),
      );
      if (refused(decodeSegment(s))) return void (into.segments[p.name] = s);
    } else if (where === "query") {
      const pairs = g(() => malformedText(p, 2_000).chain((t) => queryForms(p.name, t)));
      if (refused(parseQuery(pairs)[p.name])) return void into.query.push(...pairs);
    } else {
      const v = g(() => malformedJson(p));
      if (refused((JSON.parse(JSON.stringify({ [p.name]: v })) as Record<string, unknown>)[p.name]))
        return void into.json.push([p.name, v]);
    }
  }
  // Every kind refuses NUL (the query's is refused even before routing: http/null-bytes.ts).
  if (where === "path") into.segments[p.name] = "a%00b";
  else into.query.push(`${encode(p.name)}=a%00b`);
}

/** Bodies no endpoint expects, with the headers that announce them; none names a declared field. */
const ODD_BODIES: RequestOptions[] = [
  { raw: "not gzip", headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } },
  { raw: "name=x", headers: { "Content-Type": "text/plain" } },
  { raw: "<user><name>x</name></user>", headers: { "Content-Type": "application/xml" } },
  { raw: '{"x": "y",', headers: { "Content-Type": "application/json" } },
  { raw: '["x", 1, null]', headers: { "Content-Type": "application/json" } },
  { raw: '"just a string"', headers: { "Content-Type": "application/json" } },
  { raw: "12345678901234567890", headers: { "Content-Type": "application/json" } },
  { raw: "[".repeat(100_000) + "]".repeat(100_000), headers: { "Content-Type": "application/json" } },
  { raw: `{"x":"${"y".repeat(1_100_000)}"}`, headers: { "Content-Type": "application/json" } },
  {
    raw: Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]),
    headers: { "Content-Type": "application/json" },
  },
  { raw: '{"x": 1}', headers: { "Content-Type": "application/json; charset=utf-7" } },
  { raw: '{"x": 1}', headers: { "Content-Type": "application/x-www-form-urlencoded" } },
  { raw: "x=1&x=2", headers: { "Content-Type": "application/json" } },
  {
    raw: "%%%=%%&a[b][c][d][e][f][g]=1&=x&x[]=1&x[5000]=2",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  },
  { raw: "--x\r\nbroken", headers: { "Content-Type": "multipart/form-data; boundary=x" } },
  { raw: "x", headers: { "Content-Type": "multipart/form-data" } },
  { raw: "x=1", headers: {} },
  { raw: Buffer.alloc(64, 0), headers: { "Content-Type": "application/octet-stream" } },
];

/** Content types sent with a GET, which has no body. */
const GET_HEADERS: Record<string, string>[] = [
  { "Content-Type": "application/json" },
  { "Content-Type": "multipart/form-data; boundary=x" },
  { "Content-Type": "text/plain; charset=utf-7" },
  { Accept: "application/xml" },
  { "Content-Encoding": "br" },
];

const BOUNDARY = "fuzzBoundary7MA4YWxk";

function multipart(fields: [string, string][], files: string[]): RequestOptions {
  const junk = Buffer.from([0xff, 0xd8, 0x00, 0x3c, 0x73, 0x76, 0x67, 0xfe, 0x00, 0x89]);
  const part = (name: string, head: string, content: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, "_")}"${head}\r\n\r\n`,
      ),
      content,
      Buffer.from("\r\n"),
    ]);
  const parts = [
    ...fields.map(([n, v]) => part(n, "", Buffer.from(v))),
    ...files.map((n) => part(n, `; filename="x\u0000.png"\r\nContent-Type: image/png`, junk)),
  ];
  return {
    raw: Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]),
    headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

/** The request's body for its kind; only `json` may carry the poisoned parameter (see poison). */
function bodyOf(
  g: fc.GeneratorValue,
  kind: BodyKind,
  json: [string, unknown][],
  fields: [string, string][],
  e: Endpoint,
  poisonName: string | undefined,
): RequestOptions {
  switch (kind) {
    case "none":
      if (e.method !== "GET") return {};
      return {
        headers: g(() =>
          fc.oneof(
            { arbitrary: fc.constantFrom(...GET_HEADERS), weight: 1 },
            { arbitrary: fc.constant({}), weight: 4 },
          ),
        ),
      };
    case "json": {
      // Written by hand, so that a key may come twice (the last one counts) but never the poisoned one.
      const entries = json.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`);
      const twice = json.filter(([k]) => k !== poisonName);
      if (twice.length && g(fc.boolean)) {
        const [k] = twice[g(fc.nat, twice.length - 1)]!;
        entries.unshift(`${JSON.stringify(k)}:{"$ne":null}`);
      }
      if (g(fc.boolean)) entries.push(`"unknown":${"[".repeat(50)}${"]".repeat(50)}`);
      return { raw: `{${entries.join(",")}}`, headers: { "Content-Type": "application/json" } };
    }
    case "form": {
      const tail = g(fc.constantFrom, "", "&a[b][c][d][e][f][g]=1", "&x[]=1&x[]=2", "&%%%=%", "&=x&&");
      return {
        raw: new URLSearchParams(fields).toString() + tail,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      };
    }
    case "multipart": {
      const declaredFiles = paramsOf(e.params as never)
        .filter((p) => p.kind === "file" && p.name !== poisonName)
        .map((p) => p.name);
      return multipart(fields, g(fc.subarray, [...declaredFiles, "unknown"], { maxLength: 1 }));
    }
    case "odd":
      return g(() => fc.constantFrom(...ODD_BODIES));
  }
}
