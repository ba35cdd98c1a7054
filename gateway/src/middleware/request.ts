import { randomUUID } from "node:crypto";
import type { Context, Next } from "koa";
import {
  context,
  emptyWritten,
  observeHttpRequest,
  propagation,
  requestContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Logger,
} from "@canopy/kit";
import { HttpError, toHttpError } from "../http/errors";
import { sendJson } from "../http/json";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Every response carries X-Request-Id (the caller's, if sane); logs and gRPC calls carry it too. The
 * request's context also collects where its writes reached the event stream (http/recent-writes.ts).
 */
export async function requestId(ctx: Context, next: Next) {
  const incoming = ctx.get("X-Request-Id");
  const id = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.set("X-Request-Id", id);
  await requestContext.run({ requestId: id, written: emptyWritten() }, next);
}

/**
 * The route template the router matched (`/api/v4/groups/:id`), or "unmatched": metrics and span
 * names take the template, never the path, so ids and names never become label values.
 */
const routeOf = (ctx: Context) => String((ctx as { _matchedRoute?: string })._matchedRoute ?? "unmatched");

const tracer = trace.getTracer("canopy-gateway");

/**
 * The request's server span, the root of everything it causes (gRPC calls, events, webhook
 * deliveries); a caller's `traceparent` makes it part of the caller's trace. Named and labelled
 * when the answer is known, by the route template; no URL, query or header goes on it (they may
 * hold tokens).
 */
export async function traceRequest(ctx: Context, next: Next) {
  const parent = propagation.extract(context.active(), ctx.headers);
  const span = tracer.startSpan(
    ctx.method,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": ctx.method } },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const route = routeOf(ctx);
    span.updateName(`${ctx.method} ${route}`);
    span.setAttributes({ "http.route": route, "http.response.status_code": ctx.status });
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

/** One log line and the RED metrics per request. Paths only: query strings may hold tokens. */
export function accessLog(log: Logger) {
  return async function logRequest(ctx: Context, next: Next) {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      observeHttpRequest(ctx.method, routeOf(ctx), ctx.status, seconds);
      const line = {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        duration_ms: Math.round(seconds * 1000),
        // An administrator acting as the user through an impersonation token (never the token itself).
        ...((ctx.state as { impersonation?: boolean }).impersonation ? { impersonation: true } : {}),
      };
      log.info(line, "request");
    }
  };
}

/**
 * Renders every error: HttpError as given, gRPC failures through the one mapping in http/errors.ts,
 * Koa's own (body too large, malformed JSON) as GitLab-style 4xx, anything else as a logged 500.
 */
export function errorHandler(log: Logger) {
  return async function renderErrors(ctx: Context, next: Next) {
    try {
      await next();
    } catch (err) {
      const known = toHttpError(err) ?? fromKoa(err);
      if (!known || known.status >= 500) log.error({ err }, "request failed");
      const e = known ?? new HttpError(500, { message: "500 Internal Server Error" });
      ctx.set(e.headers);
      if (typeof e.body === "string") {
        ctx.status = e.status;
        ctx.body = e.body;
      } else sendJson(ctx, e.status, e.body);
    }
  };
}

function fromKoa(err: unknown): HttpError | undefined {
  const e = err as { status?: number; expose?: boolean; type?: string };
  if (e.status === 413) return new HttpError(413, { error: "413 Request Entity Too Large" });
  if (e.status === 415) return new HttpError(415, { error: "415 Unsupported Media Type" });
  if (e.status === 400 || e.type === "entity.parse.failed")
    return new HttpError(400, { error: "body is not valid JSON or form data" });
  return undefined;
}

/** GitLab's API headers. */
export async function apiHeaders(ctx: Context, next: Next) {
  ctx.set({
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  });
  await next();
}
