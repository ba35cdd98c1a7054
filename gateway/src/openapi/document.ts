import { OAUTH_SCOPES } from "@canopy/protos";
import type { Endpoint } from "../http/endpoint";
import { entityComponents } from "./json-schema";
import { openApiPath, operationOf, tagOf } from "./operations";

/**
 * The OpenAPI 3.1 document of /api/v4, generated from the endpoint declarations (routes/api.ts)
 * and the response entity schemas (entities/schemas): nothing in it is written by hand, so an
 * endpoint declared is an endpoint documented.
 */

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, ReturnType<typeof operationOf>>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/** Every scope an OAuth application may ask for; those an operation accepts are listed on it. */
const oauthScopes = Object.fromEntries(OAUTH_SCOPES.map((scope) => [scope, `GitLab's \`${scope}\` scope.`]));

const securitySchemes = {
  privateToken: {
    type: "apiKey",
    in: "header",
    name: "PRIVATE-TOKEN",
    description: "A personal access token.",
  },
  privateTokenQuery: {
    type: "apiKey",
    in: "query",
    name: "private_token",
    description: "The same, in the query.",
  },
  oauth2: {
    type: "oauth2",
    description: "An OAuth 2.0 access token, sent as `Authorization: Bearer <token>`.",
    flows: {
      authorizationCode: {
        authorizationUrl: "/oauth/authorize",
        tokenUrl: "/oauth/token",
        scopes: oauthScopes,
      },
    },
  },
  accessTokenQuery: {
    type: "apiKey",
    in: "query",
    name: "access_token",
    description: "An OAuth access token, in the query.",
  },
};

export function openApiDocument(endpoints: readonly Endpoint[], version: string): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const e of endpoints) (paths[openApiPath(e.path)] ??= {})[e.method.toLowerCase()] = operationOf(e);
  return {
    openapi: "3.1.0",
    info: {
      title: "Canopy",
      version,
      description: "GitLab's group, project, user and token API as Canopy answers it (GitLab API v4).",
    },
    servers: [{ url: "/api/v4" }],
    tags: [...new Set(endpoints.map((e) => tagOf(e.path)))].sort().map((name) => ({ name })),
    paths,
    components: { schemas: entityComponents(), securitySchemes },
  };
}
