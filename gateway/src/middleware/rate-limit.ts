import type { Context } from "koa";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RedisClient } from "@canopy/kit";
import { HttpError } from "../http/errors";

const WINDOW_SECONDS = 60;

/**
 * A fixed one-minute window per key, counted in Redis so every gateway shares it; if Redis is down,
 * counting falls back to this process rather than letting everything through or refusing everything:
 * each gateway then allows the whole budget on its own (with N gateways, up to N times the limit),
 * and its counts start afresh (docs/operating.md, "Redis down").
 */
function limiter(redis: RedisClient, prefix: string, name: string, points: number) {
  return new RateLimiterRedis({
    storeClient: redis,
    useRedisPackage: true,
    // While the connection is down, count in this process at once, without trying Redis.
    rejectIfRedisNotReady: true,
    keyPrefix: `${prefix}rl:${name}`,
    points,
    duration: WINDOW_SECONDS,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix: `${prefix}rl:${name}`,
      points,
      duration: WINDOW_SECONDS,
    }),
  });
}

/** GitLab's throttled answer (Rack::Attack): 429 "Retry later" with RateLimit-* headers. */
function throttled(name: string, limit: number, res: RateLimiterRes): HttpError {
  const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new HttpError(429, "Retry later\n", {
    "Content-Type": "text/plain",
    "Retry-After": String(retryAfter),
    "RateLimit-Name": name,
    "RateLimit-Limit": String(limit),
    "RateLimit-Observed": String(res.consumedPoints),
    "RateLimit-Remaining": "0",
    "RateLimit-Reset": String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
    "RateLimit-ResetTime": new Date(Date.now() + res.msBeforeNext).toUTCString(),
  });
}

export interface RateLimitSettings {
  keyPrefix: string;
  perUser: number;
  perIp: number;
  oauth: number;
  signIn: number;
}

export interface RateLimits {
  authenticated(ctx: Context, userId: number): Promise<void>;
  unauthenticated(ctx: Context): Promise<void>;
  /** OAuth endpoints, before the request is served: counted per IP; refused if the client's budget is spent. */
  oauth(ctx: Context, clientId?: string): Promise<void>;
  /**
   * After the auth service said the request proved the client with its secret: counts it for that
   * client. Requests that merely name a client_id are never counted, or anyone could lock a client out.
   */
  oauthClient(clientId: string): Promise<void>;
  signIn(ctx: Context): Promise<void>;
  /**
   * GitLab's check_rate_limit! of the hook test and resend endpoints (web_hook_test,
   * web_hook_event_resend): 5 a minute per group and user, answered 429 with GitLab's body.
   */
  webHookCall(kind: "test" | "resend", groupId: number, userId: number): Promise<void>;
}

/** The answer of GitLab's check_rate_limit!. */
function rateLimited(res: RateLimiterRes): HttpError {
  return new HttpError(
    429,
    { message: { error: "This endpoint has been requested too many times. Try again later." } },
    { "Retry-After": String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) },
  );
}

export function rateLimits(redis: RedisClient, settings: RateLimitSettings): RateLimits {
  const budget = (name: string, points: number) => {
    const rl = limiter(redis, settings.keyPrefix, name, points);
    const consume = async (key: string) => {
      try {
        await rl.consume(key);
      } catch (res) {
        if (res instanceof RateLimiterRes) throw throttled(name, points, res);
        throw res;
      }
    };
    /** Refuses once the key's budget is spent, without spending any. */
    consume.check = async (key: string) => {
      const res = await rl.get(key);
      if (res && res.consumedPoints >= points) throw throttled(name, points, res);
    };
    /** Spends one point for a request already served: it is never refused afterwards. */
    consume.count = async (key: string) => {
      await rl.penalty(key, 1);
    };
    return consume;
  };
  const byUser = budget("throttle_authenticated_api", settings.perUser);
  const byIp = budget("throttle_unauthenticated_api", settings.perIp);
  const oauthByIp = budget("throttle_oauth_ip", settings.oauth);
  const oauthByClient = budget("throttle_oauth_client", settings.oauth);
  const signInByIp = budget("throttle_sign_in", settings.signIn);
  const hookCalls = {
    test: limiter(redis, settings.keyPrefix, "web_hook_test", 5),
    resend: limiter(redis, settings.keyPrefix, "web_hook_event_resend", 5),
  };
  return {
    authenticated: (_ctx, userId) => byUser(`user:${userId}`),
    unauthenticated: (ctx) => byIp(`ip:${ctx.ip}`),
    oauth: async (ctx, clientId) => {
      await oauthByIp(`ip:${ctx.ip}`);
      if (clientId) await oauthByClient.check(`client:${clientId}`);
    },
    oauthClient: (clientId) => oauthByClient.count(`client:${clientId}`),
    signIn: (ctx) => signInByIp(`ip:${ctx.ip}`),
    webHookCall: async (kind, groupId, userId) => {
      try {
        await hookCalls[kind].consume(`group:${groupId}:user:${userId}`);
      } catch (res) {
        if (res instanceof RateLimiterRes) throw rateLimited(res);
        throw res;
      }
    },
  };
}
