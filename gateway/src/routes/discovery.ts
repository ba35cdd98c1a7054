import type Router from "@koa/router";
import { OAUTH_SCOPES, type oauth } from "@canopy/protos";
import type { PromiseClient } from "@canopy/kit";
import type { GatewayConfig } from "../config";
import { allowCors } from "../http/oauth-response";
import { sendJson } from "../http/json";
import type { RouteDeps } from "./context";

/** The provider's metadata (OpenID Connect Discovery 1.0 / RFC 8414), built from the public URL. */
export function discoveryDocument(config: GatewayConfig) {
  const base = config.CANOPY_EXTERNAL_URL.replace(/\/+$/, "");
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ["code", "token"],
    response_modes_supported: ["query", "fragment"],
    grant_types_supported: [
      "authorization_code",
      "password",
      "client_credentials",
      "refresh_token",
      "implicit",
    ],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    claim_types_supported: ["normal"],
    claims_supported: [
      "iss",
      "sub",
      "aud",
      "exp",
      "iat",
      "auth_time",
      "nonce",
      "name",
      "nickname",
      "preferred_username",
      "email",
      "email_verified",
      "website",
      "profile",
      "picture",
      "groups",
      "groups_direct",
    ],
    code_challenge_methods_supported: ["plain", "S256"],
  };
}

async function jwks(client: PromiseClient<typeof oauth.OAuthServiceService>) {
  return JSON.parse((await client.getJwks({})).jwksJson) as unknown;
}

export function discoveryRoutes(router: Router, { config, oauth }: RouteDeps) {
  const document = discoveryDocument(config);
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    router.get(path, (ctx) => {
      allowCors(ctx, "GET, HEAD");
      sendJson(ctx, 200, document);
    });
  }
  for (const path of ["/oauth/discovery/keys", "/-/jwks"]) {
    router.get(path, async (ctx) => {
      allowCors(ctx, "GET, HEAD");
      // Short enough that a rotated-in key is picked up well before the old one leaves the set.
      ctx.set("Cache-Control", "max-age=300, public, must-revalidate, no-transform");
      sendJson(ctx, 200, await jwks(oauth));
    });
  }
}
