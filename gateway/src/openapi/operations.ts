import { OAUTH_SCOPES } from "@canopy/protos";
import { acceptedScopes } from "../http/scopes";
import type { Endpoint } from "../http/endpoint";
import { isFileParam } from "../http/params";
import { componentRef, parameterSchemaOf, responseSchemaOf, type JsonSchema } from "./json-schema";

/**
 * One endpoint declaration (http/endpoint.ts) as an OpenAPI 3.1 operation: its path and query
 * parameters or request body from `params`, its success answers from `responses`, the errors its
 * access, scopes and parameters imply, and the credentials that reach it.
 */

/** GitLab's `:id` as OpenAPI's `{id}`. */
export const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, "{$1}");

const pathParamsOf = (path: string) => [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);

/**
 * The area an endpoint belongs to, from its path: the first segment and the first literal segment
 * after it (`/groups/:id/members/all` is "groups/members"), as GitLab's API documentation groups them.
 */
export function tagOf(path: string): string {
  const [first, ...rest] = path.split("/").filter(Boolean);
  const sub = rest.find((s) => !s.startsWith(":"));
  return sub ? `${first}/${sub}` : first!;
}

/**
 * The operation's id: the handler's name where it has its own, else one built from method and
 * path (`postProjectsIdStar`) for handlers declared inline.
 */
export function operationIdOf(e: Endpoint): string {
  const name = e.handler.name;
  if (name && name !== "handler") return name;
  const words = e.path.split(/[/_:-]+/).filter(Boolean);
  return e.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

const jsonContent = (schema: JsonSchema) => ({ "application/json": { schema } });
const errorResponse = (description: string) => ({
  description,
  content: jsonContent({ $ref: componentRef("ApiError") }),
});

/** The error statuses the declaration implies; anything else a service may answer is `default`. */
function errorResponses(e: Endpoint) {
  const write = e.method !== "GET";
  const out: Record<string, unknown> = {};
  if (Object.keys(e.params).length || write)
    out["400"] = errorResponse("A parameter is missing or invalid, or the request is refused.");
  out["401"] = errorResponse(
    e.access === "anonymous"
      ? "The token sent is unknown, expired or revoked."
      : "No token, or a token that is unknown, expired or revoked.",
  );
  out["403"] = errorResponse(
    [
      "The token's scopes do not reach the endpoint (`insufficient_scope`), or the account is blocked",
      e.access === "admin" ? ", or the caller is no administrator" : ", or the caller may not do this",
      ".",
    ].join(""),
  );
  if (pathParamsOf(e.path).length) out["404"] = errorResponse("Not found, or not visible to the caller.");
  if (write) out["409"] = errorResponse("Conflicts with what exists (taken path, existing link).");
  out["429"] = errorResponse("Rate limit reached.");
  out["503"] = errorResponse("A service behind the gateway is not answering.");
  out.default = errorResponse("Another refusal, in GitLab's error shape.");
  return out;
}

function successResponses(e: Endpoint) {
  const out: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(e.responses)) {
    if (body === undefined) continue;
    if (body === null) out[status] = { description: "No body." };
    else if (body === "file")
      out[status] = {
        description: "The file.",
        content: { "*/*": { schema: { type: "string", format: "binary" } } },
      };
    else out[status] = { description: "Success.", content: jsonContent(responseSchemaOf(body)) };
  }
  return out;
}

/**
 * Who may call: a personal, project or group access token (PRIVATE-TOKEN header, or
 * `private_token` in the query), or an OAuth access token (Bearer, or `access_token`). The scopes
 * are those the gateway accepts (http/scopes.ts) that an OAuth token can hold. Anonymous endpoints
 * take no credentials too (`{}`).
 */
function securityOf(e: Endpoint) {
  const oauthScopes: readonly string[] = OAUTH_SCOPES;
  const scopes = acceptedScopes(e.scopes, e.method).filter((s) => oauthScopes.includes(s));
  const requirements: Record<string, string[]>[] = [
    { privateToken: [] },
    { privateTokenQuery: [] },
    { oauth2: scopes },
    { accessTokenQuery: [] },
  ];
  return e.access === "anonymous" ? [{}, ...requirements] : requirements;
}

function parametersAndBody(e: Endpoint) {
  const schema = parameterSchemaOf(e.params);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inPath = pathParamsOf(e.path);
  const parameters: unknown[] = inPath.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: properties[name] ?? { type: "string" },
  }));
  const rest = Object.keys(properties).filter((name) => !inPath.includes(name));
  // Grape reads DELETE bodies too, but clients send a DELETE's parameters in the query string.
  if (e.method === "GET" || e.method === "DELETE") {
    for (const name of rest)
      parameters.push({ name, in: "query", required: required.has(name), schema: properties[name] });
    return { parameters };
  }
  if (!rest.length) return { parameters };
  const body: JsonSchema = {
    type: "object",
    properties: Object.fromEntries(rest.map((name) => [name, properties[name]])),
  };
  const requiredInBody = rest.filter((name) => required.has(name));
  if (requiredInBody.length) body.required = requiredInBody;
  const content: Record<string, unknown> = {
    "application/json": { schema: body },
    "application/x-www-form-urlencoded": { schema: body },
  };
  if (rest.some((name) => isFileParam(e.params[name] as never)))
    content["multipart/form-data"] = { schema: body };
  return { parameters, requestBody: { required: requiredInBody.length > 0, content } };
}

export function operationOf(e: Endpoint) {
  return {
    operationId: operationIdOf(e),
    tags: [tagOf(e.path)],
    ...(e.access === "admin" ? { description: "Administrators only." } : {}),
    security: securityOf(e),
    ...parametersAndBody(e),
    responses: { ...successResponses(e), ...errorResponses(e) },
  };
}
