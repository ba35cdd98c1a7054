import type { Context } from "koa";

/**
 * Sends JSON with `Content-Type: application/json` exactly: python-gitlab compares the header for
 * equality, so Koa's default `; charset=utf-8` would make it treat the body as text.
 */
export function sendJson(ctx: Context, status: number, value: unknown): void {
  sendJsonText(ctx, status, JSON.stringify(value));
}

/** The same, for a body that is already JSON text. */
export function sendJsonText(ctx: Context, status: number, json: string): void {
  ctx.status = status;
  ctx.set("Content-Type", "application/json");
  ctx.body = json;
}

/**
 * Replays a kept answer (answer-cache.ts): gzipped when the client accepts it and the compressed
 * bytes exist, as is otherwise. Every GitLab client asks for gzip (python-requests, gitbeaker's
 * fetch, curl --compressed), and a hundred-project group detail shrinks about forty-five-fold (411,612 bytes to 9,170).
 */
export function sendKeptAnswer(
  ctx: Context,
  answer: { status: number; body: Buffer },
  gzipped: Buffer | undefined,
): void {
  ctx.status = answer.status;
  // Set before the body: Koa then keeps it rather than calling a Buffer application/octet-stream.
  ctx.set("Content-Type", "application/json");
  if (gzipped && ctx.acceptsEncodings("gzip", "identity") === "gzip") {
    ctx.set("Content-Encoding", "gzip");
    ctx.body = gzipped;
  } else ctx.body = answer.body;
}
