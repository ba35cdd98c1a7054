import type Router from "@koa/router";
import { common } from "@canopy/protos";
import type { Context } from "koa";
import { bearerToken, clientCredentials, text } from "../http/client-credentials";
import { allowCors, bearerChallenge, sendOAuthError, sendOAuthJson } from "../http/oauth-response";
import type { RouteDeps } from "./context";
import { rawParams } from "./context";

const TOKEN_PARAMS = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "username",
  "password",
  "scope",
  "nonce",
];

/** The JSON endpoints of the OAuth provider. Rules live in the auth service; this maps HTTP. */
export function oauthRoutes(router: Router, { oauth, limits, cache }: RouteDeps) {
  router.all("/oauth/token", async (ctx) => {
    if (allowCors(ctx, "POST") || !allowMethod(ctx, "POST")) return;
    const p = rawParams(ctx);
    const { client, refusal } = clientCredentials(ctx, p);
    await limits.oauth(ctx, client?.clientId);
    // A password guess is a sign-in: it spends from the same per-IP budget as the sign-in page.
    if (text(p.grant_type) === "password") await limits.signIn(ctx);
    if (refusal) return sendOAuthError(ctx, refusal);
    const reply = await oauth.token({
      grantType: text(p.grant_type),
      client,
      code: text(p.code),
      redirectUri: text(p.redirect_uri),
      codeVerifier: text(p.code_verifier),
      refreshToken: text(p.refresh_token),
      username: text(p.username),
      password: text(p.password),
      scope: text(p.scope),
      nonce: text(p.nonce),
      present: TOKEN_PARAMS.filter((k) => p[k] !== undefined),
    });
    if (reply.clientAuthenticated) await limits.oauthClient(client.clientId);
    if (reply.error) return sendOAuthError(ctx, reply.error);
    // Blank fields are left out, as Doorkeeper does (no refresh_token for client credentials).
    const body = {
      access_token: reply.accessToken,
      token_type: reply.tokenType,
      expires_in: reply.expiresIn,
      refresh_token: reply.refreshToken || undefined,
      scope: reply.scope,
      created_at: reply.createdAt,
      id_token: reply.idToken || undefined,
    };
    sendOAuthJson(ctx, 200, body);
  });

  router.all("/oauth/revoke", async (ctx) => {
    if (allowCors(ctx, "POST") || !allowMethod(ctx, "POST")) return;
    const p = rawParams(ctx);
    const { client, refusal } = clientCredentials(ctx, p);
    await limits.oauth(ctx, client?.clientId);
    if (refusal) return sendOAuthError(ctx, refusal);
    if (!text(p.token)) return sendOAuthError(ctx, missing("token"));
    const reply = await oauth.revoke({
      token: text(p.token),
      tokenTypeHint: text(p.token_type_hint),
      client,
    });
    if (reply.clientAuthenticated) await limits.oauthClient(client.clientId);
    if (reply.error?.error === "unauthorized_client") {
      // GitLab's revocation renderer: 403 and no WWW-Authenticate.
      return sendOAuthJson(ctx, 403, {
        error: reply.error.error,
        error_description: reply.error.description,
      });
    }
    if (reply.error) return sendOAuthError(ctx, reply.error);
    // As for personal access tokens: this gateway forgets the token now, not when the event arrives.
    await cache.dropTokenValue(text(p.token));
    sendOAuthJson(ctx, 200, {});
  });

  router.all("/oauth/introspect", async (ctx) => {
    if (!allowMethod(ctx, "POST")) return;
    const p = rawParams(ctx);
    const { client, refusal } = clientCredentials(ctx, p);
    await limits.oauth(ctx, client?.clientId);
    if (refusal) return sendOAuthError(ctx, refusal);
    if (!text(p.token)) return sendOAuthError(ctx, missing("token"));
    const bearer = /^Bearer\s+(.+)$/i.exec(ctx.get("Authorization"))?.[1]?.trim() ?? "";
    const r = await oauth.introspect({
      token: text(p.token),
      tokenTypeHint: text(p.token_type_hint),
      client,
      bearerToken: bearer,
    });
    if (r.clientAuthenticated) await limits.oauthClient(client.clientId);
    if (r.error) return sendOAuthError(ctx, r.error);
    if (!r.active) return sendOAuthJson(ctx, 200, { active: false });
    sendOAuthJson(ctx, 200, {
      active: true,
      scope: r.scope,
      client_id: r.clientId || null,
      username: r.username || undefined,
      token_type: r.tokenType,
      exp: r.exp || undefined,
      iat: r.iat,
      sub: r.sub || undefined,
    });
  });

  router.get("/oauth/token/info", async (ctx) => {
    const info = await tokenInfo(bearerToken(ctx, rawParams(ctx)));
    if (!info) {
      // GitLab builds this answer without the token: always the same description, plus a stray "state".
      const error = { error: "invalid_token", description: "The access token is invalid" };
      return sendOAuthError(ctx, error, { state: "unauthorized" });
    }
    sendOAuthJson(ctx, 200, { ...info, scopes: info.scope, expires_in_seconds: info.expires_in });
  });

  /**
   * Token info from the gateway's authentication cache, which revocation events keep true, so the
   * common case costs no call; tokens the API refuses but token info knows (no user) ask the service.
   */
  async function tokenInfo(token: string) {
    const answer = token ? await cache.authenticate(token) : undefined;
    const actor = answer?.actor;
    if (answer && actor?.tokenKind === common.TokenKind.TOKEN_KIND_OAUTH) {
      const left = answer.validUntil
        ? Math.max(0, Math.floor((answer.validUntil.getTime() - Date.now()) / 1000))
        : null;
      return {
        resource_owner_id: actor.userId,
        scope: actor.scopes,
        expires_in: left,
        application: { uid: answer.applicationUid || null },
        created_at: Math.floor((answer.tokenCreatedAt?.getTime() ?? 0) / 1000),
      };
    }
    if (actor || !token) return undefined;
    const r = await oauth.tokenInfo({ token });
    if (r.error) return undefined;
    return {
      resource_owner_id: r.resourceOwnerId || null,
      scope: r.scopes,
      expires_in: r.expiresIn < 0 ? null : r.expiresIn,
      application: { uid: r.applicationUid || null },
      created_at: r.createdAt,
    };
  }

  const userinfo = async (ctx: Context) => {
    if (allowCors(ctx, "GET, HEAD, POST, OPTIONS")) return;
    const r = await oauth.userInfo({ token: bearerToken(ctx, rawParams(ctx)) });
    if (r.error) {
      // Empty body; the reason is in the challenge only.
      ctx.set("WWW-Authenticate", bearerChallenge(r.error.error, r.error.description));
      ctx.status = r.error.error === "insufficient_scope" ? 403 : 401;
      ctx.body = "";
      return;
    }
    sendOAuthJson(ctx, 200, JSON.parse(r.claimsJson));
  };
  router.get("/oauth/userinfo", userinfo);
  router.post("/oauth/userinfo", userinfo);
  router.options("/oauth/userinfo", userinfo);
}

const missing = (name: string) => ({
  error: "invalid_request",
  description: `Missing required parameter: ${name}.`,
});

function allowMethod(ctx: Context, method: string): boolean {
  if (ctx.method === method) return true;
  ctx.set("Allow", method);
  sendOAuthJson(ctx, 405, { error: "invalid_request", error_description: `Use ${method}.` });
  return false;
}
