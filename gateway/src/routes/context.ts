import type { Context } from "koa";
import type { PromiseClient, RedisClient } from "@canopy/kit";
import type { auth, common, oauth, settings } from "@canopy/protos";
import type { AuthenticationCache } from "../authn/cache";
import type { GatewayConfig } from "../config";
import { normalizeKeys } from "../http/params";
import type { RateLimits } from "../middleware/rate-limit";

/** What route handlers need. */
export interface RouteDeps {
  config: GatewayConfig;
  auth: PromiseClient<typeof auth.AuthServiceService>;
  oauth: PromiseClient<typeof oauth.OAuthServiceService>;
  settings: PromiseClient<typeof settings.SettingsServiceService>;
  cache: AuthenticationCache;
  redis: RedisClient;
  limits: RateLimits;
}

export const actorOf = (ctx: Context): common.Actor => ctx.state.actor;

/** Query, body and route params merged as Grape merges them (route params win). */
export const rawParams = (ctx: Context): Record<string, unknown> =>
  normalizeKeys({
    ...(ctx.query as Record<string, unknown>),
    ...((ctx.request.body as Record<string, unknown> | undefined) ?? {}),
    ...((ctx as unknown as { params?: Record<string, string> }).params ?? {}),
  });
