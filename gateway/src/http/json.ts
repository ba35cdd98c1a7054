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
