import type { Context } from "koa";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RedisClient } from "@canopy/kit";
import { HttpError } from "../http/errors";

const WINDOW_SECONDS = 60;

/**
 * A fixed one-minute window per key, counted in Redis so every gateway shares it; if Redis is down,
 * counting falls back to this process rather than letting everything through or refusing everything.
 */
function limiter(redis: RedisClient, name: string, points: number) {
  return new RateLimiterRedis({
    storeClient: redis,
    useRedisPackage: true,
    keyPrefix: `canopy:rl:${name}`,
    points,
    duration: WINDOW_SECONDS,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix: `canopy:rl:${name}`,
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
  });
}

export interface RateLimits {
  authenticated(ctx: Context, userId: number): Promise<void>;
  unauthenticated(ctx: Context): Promise<void>;
}

export function rateLimits(redis: RedisClient, perUser: number, perIp: number): RateLimits {
  const byUser = limiter(redis, "throttle_authenticated_api", perUser);
  const byIp = limiter(redis, "throttle_unauthenticated_api", perIp);
  const consume = async (rl: RateLimiterRedis, name: string, limit: number, key: string) => {
    try {
      await rl.consume(key);
    } catch (res) {
      if (res instanceof RateLimiterRes) throw throttled(name, limit, res);
      throw res;
    }
  };
  return {
    authenticated: (_ctx, userId) => consume(byUser, "throttle_authenticated_api", perUser, `user:${userId}`),
    unauthenticated: (ctx) => consume(byIp, "throttle_unauthenticated_api", perIp, `ip:${ctx.ip}`),
  };
}
