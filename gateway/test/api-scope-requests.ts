/**
 * Requests for the scope matrix (api-scope-matrix.test.ts), built from an endpoint's declaration:
 *
 * - `wellFormed`: real path ids (api-real-resources.ts) and a value its schema accepts for every
 *   required parameter and every one its cross-field rules ask for ("x is missing"). Sent by an
 *   administrator, most such writes would succeed, so a token refused by scope that got through
 *   anyway would show in the table checksums, not only in the status.
 * - `refusedByParams`: the same write with one parameter its schema refuses, so that a token whose
 *   scope reaches the endpoint is stopped by the parameter check (400) and writes nothing. The scope
 *   check comes first (http/mount-endpoints.ts), so a 400 proves the scope reached it.
 */
import { z } from "zod";
import type { Endpoint } from "../src/http/endpoint";
import { paramsOf, type ParamInfo } from "./api-property-values";
import { realFor, type RealResources } from "./api-real-resources";

export interface MatrixRequest {
  method: string;
  /** Under /api/v4, path parameters filled, with the query string. */
  path: string;
  json?: Record<string, unknown>;
  /** The path parameters, URL-encoded, and the other parameters' values. */
  segments: Record<string, string>;
  values: Record<string, unknown>;
}

let counter = 0;

/** Values a schema may accept for this parameter, the likeliest first. */
function candidates(p: ParamInfo, real: RealResources): unknown[] {
  const name = `scope_matrix_${Date.now().toString(36)}_${++counter}`;
  const byName: Record<string, unknown[]> = {
    email: [`${name}@example.com`],
    password: ["long-enough-password-1"],
    url: ["https://example.com/scope-matrix"],
    redirect_uri: ["https://example.com/scope-matrix"],
    scopes: [["api"], "api"],
    access_level: ["30"],
    group_access: ["30"],
  };
  const byKind: Record<string, unknown[]> = {
    integer: ["1"],
    idOrPath: [real.groups?.[0] ?? "1"],
    boolean: ["true"],
    enum: p.options.slice(0, 1),
    date: ["2030-01-01"],
    array: [["1"]],
    string: [name],
  };
  return [...(byName[p.name] ?? []), ...(real[p.name]?.slice(0, 1) ?? []), ...(byKind[p.kind] ?? [])];
}

const pathNames = (e: Endpoint) => [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);

/** A request every check of `e` but the caller's rights should let through. */
export function wellFormed(e: Endpoint, real: RealResources): MatrixRequest {
  const inPath = pathNames(e);
  const segments = Object.fromEntries(inPath.map((n) => [n, realFor(real, e, n)[0] ?? "1"]));
  const params = paramsOf(e.params as never);
  const values: Record<string, unknown> = {};
  const fill = (p: ParamInfo) => {
    const value = candidates(p, real).find((v) => p.schema.safeParse(v).success);
    if (value !== undefined) values[p.name] = value;
  };
  for (const p of params)
    if (!inPath.includes(p.name) && !p.schema.safeParse(undefined).success && p.kind !== "file") fill(p);
  // Cross-field rules name what else they need, as Grape's messages do: "name is missing".
  for (let round = 0; round < 3 && e.validate; round++) {
    const parsed = z.object(e.params as z.ZodRawShape).safeParse({ ...values, ...decoded(segments) });
    if (!parsed.success) break;
    const missing = e
      .validate(parsed.data as never)
      .flatMap((m) => (typeof m === "string" ? missingIn(m) : []))
      .filter((n) => !(n in values));
    const wanted = params.filter((p) => missing.includes(p.name));
    if (!wanted.length) break;
    wanted.forEach(fill);
  }
  return build(e, segments, values);
}

/** The request for these parameters: values in the query string of a GET, else in a JSON body. */
function build(
  e: Endpoint,
  segments: Record<string, string>,
  values: Record<string, unknown>,
): MatrixRequest {
  const path = `/api/v4${e.path.replace(/:([a-z_]+)/g, (_, n: string) => segments[n]!)}`;
  if (e.method !== "GET") return { method: e.method, path, json: values, segments, values };
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(values))
    for (const item of Array.isArray(v) ? v : [v])
      query.append(Array.isArray(v) ? `${k}[]` : k, String(item));
  return { method: e.method, path: query.size ? `${path}?${query}` : path, segments, values };
}

/**
 * What a Grape message asks for: "name is missing", or the first of "a, b are missing, at least one
 * parameter must be provided" (or "exactly one").
 */
function missingIn(message: string): string[] {
  return message.split(/, (?=\w+ is missing)/).flatMap((part) => {
    const m = /^([\w, ]+?) (?:is|are) missing/.exec(part);
    return m ? [m[1]!.split(", ")[0]!] : [];
  });
}

const decoded = (segments: Record<string, string>) =>
  Object.fromEntries(Object.entries(segments).map(([k, v]) => [k, decodeURIComponent(v)]));

/**
 * `request` with one parameter its schema refuses: a body field given an object, or else a path
 * segment given 0. Undefined for an endpoint without parameters (nothing to refuse).
 */
export function refusedByParams(e: Endpoint, request: MatrixRequest): MatrixRequest | undefined {
  const inPath = pathNames(e);
  const params = paramsOf(e.params as never);
  const bodyParam = params.find((p) => !inPath.includes(p.name));
  if (bodyParam) return build(e, request.segments, { ...request.values, [bodyParam.name]: { $ne: null } });
  const segment = params.find((p) => inPath.includes(p.name) && !p.schema.safeParse("0").success);
  if (!segment) return undefined;
  return build(e, { ...request.segments, [segment.name]: "0" }, request.values);
}
