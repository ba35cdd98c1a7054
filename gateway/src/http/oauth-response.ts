import type { Context } from "koa";
import type { oauth } from "@canopy/protos";
import { triedBasic } from "./client-credentials";

/** Doorkeeper's statuses: 401 for client failures, 400 for the rest. */
const STATUS: Record<string, number> = { invalid_client: 401, unauthorized_client: 401, invalid_token: 401 };

/** Token responses must never be cached (RFC 6749 §5.1). */
export function noStore(ctx: Context) {
  ctx.set({ "Cache-Control": "no-store, no-cache", Pragma: "no-cache" });
}

/** OAuth endpoints answer cross-origin requests from browser clients, without credentials. */
export function allowCors(ctx: Context, methods: string) {
  ctx.set({ "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": methods });
  if (ctx.method === "OPTIONS") {
    ctx.set({
      "Access-Control-Allow-Headers": "Authorization, Content-Type",
      "Access-Control-Max-Age": "86400",
    });
    ctx.status = 204;
    return true;
  }
  return false;
}

export function sendOAuthJson(ctx: Context, status: number, body: unknown) {
  noStore(ctx);
  ctx.status = status;
  ctx.set("Content-Type", "application/json; charset=utf-8");
  ctx.body = JSON.stringify(body);
}

const BASIC_CHALLENGE = 'Basic realm="Doorkeeper", charset="UTF-8"';

/** RFC 6750 header value; quotes and backslashes are not allowed inside, so they become `_`. */
export const bearerChallenge = (error: string, description: string) =>
  `Bearer realm="Doorkeeper", error="${error}", error_description="${description.replace(/["\\]/g, "_")}"`;

/**
 * An RFC 6749 error as Doorkeeper renders it: JSON body, WWW-Authenticate even on 400. A 401 to a
 * client that tried HTTP Basic challenges with Basic instead (RFC 6749 §5.2: the scheme it used).
 */
export function sendOAuthError(ctx: Context, error: oauth.OAuthError, extra: Record<string, string> = {}) {
  const status = STATUS[error.error] ?? 400;
  const basic = status === 401 && triedBasic(ctx);
  ctx.set("WWW-Authenticate", basic ? BASIC_CHALLENGE : bearerChallenge(error.error, error.description));
  sendOAuthJson(ctx, status, {
    error: error.error,
    error_description: error.description,
    ...extra,
  });
}
