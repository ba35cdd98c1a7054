import { z } from "zod";
import { endpoint, type Call, type Endpoint } from "../http/endpoint";
import { sendJsonText } from "../http/json";
import { openApiDocument } from "../openapi/document";
import { GITLAB_VERSION } from "@canopy/kit";

/**
 * GET /api/v4/openapi.json: the OpenAPI 3.1 document of every declared endpoint, itself included.
 * `all` gives the declarations (routes/api.ts, which lists this one too); the document is built on
 * the first request, when every route module has loaded, and kept as text for the process's life.
 */
export function openApiEndpoints(all: () => readonly Endpoint[]) {
  let documentText: string | undefined;
  const noParams = {};
  function showOpenApiDocument({ ctx }: Call<typeof noParams>) {
    documentText ??= JSON.stringify(openApiDocument(all(), GITLAB_VERSION));
    sendJsonText(ctx, 200, documentText);
  }
  return [
    endpoint({
      method: "GET",
      path: "/openapi.json",
      access: "anonymous",
      params: noParams,
      handler: showOpenApiDocument,
      responses: {
        200: z.looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({ version: z.string() }) }),
      },
    }),
  ];
}
