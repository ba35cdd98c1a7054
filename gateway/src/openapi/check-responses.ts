import { appendFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { Context, Next } from "koa";
import { API_ENDPOINTS } from "../routes/api";
import { GITLAB_VERSION } from "@canopy/kit";
import { openApiDocument } from "./document";
import { ResponseChecker } from "./response-check";

/**
 * Test stacks only (CANOPY_OPENAPI_CHECK_FILE): checks every /api/v4 answer this gateway gives
 * against the OpenAPI document and appends one JSON line per answer to `file` — the operation,
 * the status, and what did not match. Whatever client made the request (python-gitlab,
 * gitbeaker, a browser, fetch), its answers are checked; the e2e suite then asserts that no
 * line has problems. Appending whole lines keeps several gateway processes on one file apart.
 */
export function checkResponses(file: string) {
  let checker: ResponseChecker | undefined;
  return async function checkAnswerAgainstOpenApi(ctx: Context, next: Next) {
    // Upstream of the error handler: errors are rendered by the time this looks at the body.
    await next();
    checker ??= new ResponseChecker(openApiDocument(API_ENDPOINTS, GITLAB_VERSION));
    const answer = {
      method: ctx.method,
      path: ctx.path.slice("/api/v4".length),
      status: ctx.status,
      body: bodyText(ctx),
    };
    const mismatch = checker.check(answer);
    const line = {
      method: answer.method,
      path: answer.path,
      status: answer.status,
      operation: checker.operationPath(answer.method, answer.path) ?? null,
      ...(mismatch ? { problems: mismatch.problems, body: answer.body.slice(0, 2000) } : {}),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
}

/** The answer's body as text, unzipped when a kept answer was replayed gzipped (http/json.ts). */
function bodyText(ctx: Context): string {
  const body: unknown = ctx.body;
  if (body === null || body === undefined) return "";
  if (typeof body === "string") return body;
  if (Buffer.isBuffer(body)) {
    const bytes = ctx.response.get("Content-Encoding") === "gzip" ? gunzipSync(body) : body;
    return ctx.response.is("json") ? bytes.toString("utf8") : "";
  }
  return JSON.stringify(body);
}
