import type { Context } from "koa";
import type { oauth } from "@canopy/protos";

const INVALID_CLIENT: oauth.OAuthError = {
  error: "invalid_client",
  description:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
};

export type ClientAuthentication =
  | { client: oauth.ClientCredentials; refusal?: undefined }
  | { client?: undefined; refusal: oauth.OAuthError };

/**
 * Client credentials as RFC 6749 §2.3 allows them: HTTP Basic (form-encoded parts) or client_id /
 * client_secret in the body. Never in the query string (§2.3.1: URLs end up in logs and histories),
 * and never both methods at once (§2.3): either is refused as invalid_client.
 */
export function clientCredentials(ctx: Context, params: Record<string, unknown>): ClientAuthentication {
  const inQuery = ["client_id", "client_secret"].some((k) => ctx.query[k] !== undefined);
  if (inQuery) return { refusal: INVALID_CLIENT };
  const basic = basicCredentials(ctx);
  const clientId = text(params.client_id);
  const clientSecret = text(params.client_secret);
  if (basic) {
    // A client_id beside Basic is tolerated when it names the same client; a second secret is not.
    const second = params.client_secret !== undefined || (clientId !== "" && clientId !== basic.clientId);
    return second ? { refusal: INVALID_CLIENT } : { client: { ...basic, method: "basic" } };
  }
  return { client: { clientId, clientSecret, method: clientId ? "post" : "" } };
}

/** Whether the request tried HTTP Basic client authentication (its 401s then challenge with Basic). */
export const triedBasic = (ctx: Context) => /^Basic(\s|$)/i.test(ctx.get("Authorization"));

function basicCredentials(ctx: Context) {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(ctx.get("Authorization"))?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  const part = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "));
    } catch {
      return s;
    }
  };
  return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) };
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
