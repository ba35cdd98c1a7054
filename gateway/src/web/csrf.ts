import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, Next } from "koa";
import { HttpError } from "../http/errors";
import { sessionOf } from "./session";

export const CSRF_FIELD = "authenticity_token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Compares digests, so neither the length nor the content of the expected token leaks through timing. */
export function csrfMatches(expected: string, supplied: unknown): boolean {
  if (typeof supplied !== "string" || !supplied || !expected) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(expected), digest(supplied));
}

export const invalidAuthenticityToken = () => new HttpError(422, "Invalid authenticity token");

/**
 * Every state-changing page request must carry the session's token, in the form field (Rails'
 * name) or the X-CSRF-Token header. Without a session there is nothing to match, so it fails too.
 */
export async function verifyCsrf(ctx: Context, next: Next) {
  if (SAFE_METHODS.has(ctx.method)) return next();
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  const supplied = body[CSRF_FIELD] ?? ctx.get("X-CSRF-Token");
  const session = sessionOf(ctx);
  if (!session || !csrfMatches(session.data.csrf, supplied)) throw invalidAuthenticityToken();
  return next();
}
