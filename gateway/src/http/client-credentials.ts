import type { Context } from "koa";
import type { oauth } from "@canopy/protos";

/**
 * Client credentials as Doorkeeper reads them: HTTP Basic first (RFC 6749 §2.3.1, form-encoded
 * parts), and only without it the client_id / client_secret parameters.
 */
export function clientCredentials(ctx: Context, params: Record<string, unknown>): oauth.ClientCredentials {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(ctx.get("Authorization"))?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const part = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        return s;
      }
    };
    if (colon > 0)
      return {
        clientId: part(decoded.slice(0, colon)),
        clientSecret: part(decoded.slice(colon + 1)),
        method: "basic",
      };
  }
  const clientId = text(params.client_id);
  const clientSecret = text(params.client_secret);
  return { clientId, clientSecret, method: clientId ? "post" : "" };
}

/** A parameter as a string ("" when absent or not a single string). */
export const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The bearer token of a request: `access_token` parameter first, then the header (GitLab's order). */
export function bearerToken(ctx: Context, params: Record<string, unknown>): string {
  return (
    text(params.access_token) ||
    /^Bearer\s+(.+)$/i.exec(ctx.get("Authorization"))?.[1]?.trim() ||
    text(params.bearer_token)
  );
}
