import type { Context, Next } from "koa";
import { HttpError } from "./errors";

/**
 * Request bodies are taken as sent: a `Content-Encoding` other than identity (gzip, br, deflate)
 * is 415 before the body parser sees it. Inflating would let a small body grow past the size
 * limit after the check, and a corrupt stream surfaced as a 500.
 */
export async function refuseEncodedBodies(ctx: Context, next: Next) {
  const encoding = ctx.get("Content-Encoding").trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new HttpError(415, { error: "415 Unsupported Media Type" });
  }
  return next();
}
