import type { Context, Next } from "koa";
import { HttpError, paramError } from "./errors";

/**
 * Refuses a NUL byte anywhere in the query string or the body, in a name or a value, at any depth,
 * declared or not (GitLab's HandleNullBytes middleware does the same). PostgreSQL can neither store
 * nor compare one, so without this an undeclared field passed on to a service is a 500.
 * The answer names the field as Grape would: `{"error":"search is invalid"}`.
 */
export async function refuseNulBytes(ctx: Context, next: Next) {
  for (const source of [ctx.query, ctx.request.body]) {
    const field = fieldWithNul(source);
    if (field === KEY_WITH_NUL) throw new HttpError(400, { error: "parameter names must not contain NUL" });
    if (field !== undefined) throw paramError(`${field.replace(/\[\]$/, "")} is invalid`);
  }
  return next();
}

const KEY_WITH_NUL = Symbol("key with NUL");

/** The top-level field whose name or value holds a NUL; KEY_WITH_NUL when a name itself does. */
function fieldWithNul(source: unknown): string | typeof KEY_WITH_NUL | undefined {
  if (!source || typeof source !== "object") return undefined;
  for (const [key, value] of Object.entries(source)) {
    if (key.includes("\u0000")) return KEY_WITH_NUL;
    if (holdsNul(value)) return key;
  }
  return undefined;
}

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  // Deeper than any parameter GitLab declares: refuse rather than walk an attacker's structure.
  if (!value || typeof value !== "object" || depth > 32) return depth > 32;
  return Object.entries(value).some(([k, v]) => k.includes("\u0000") || holdsNul(v, depth + 1));
}
