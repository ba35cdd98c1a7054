import type { Next } from "koa";
import { LRUCache } from "lru-cache";
import type { Logger, PromiseClient, RedisClient } from "@canopy/kit";
import type { common, userActivity } from "@canopy/protos";
import type { ApiContext } from "./api-context";

const DAY_SECONDS = 86_400;

/**
 * Users' last activity day (GitLab's Users::ActivityService: at most one write a day per user),
 * kept cheaply: a signed-in request costs nothing more than a look in this process's memory after
 * the user's first request of the day here, and at most one Redis `SET NX` otherwise. Only the
 * request that sets the day's key (on whichever gateway) calls the auth service, which writes the
 * row only when the day changed. Recording is never awaited by the request it comes from.
 *
 * Nothing depends on the memory here: it only saves Redis trips, and the key in Redis is what makes
 * the write once a day across gateways. When the call fails the key is dropped again, so a later
 * request retries; when Redis is down nothing is recorded (activity is best effort, never an error).
 *
 * Requests made under Sudo or with an impersonation token are an administrator's, not the user's:
 * they do not count as the user's activity.
 */
export class UserActivityRecorder {
  private readonly seen = new LRUCache<string, true>({ max: 100_000, ttl: DAY_SECONDS * 1000 });

  constructor(
    private readonly redis: RedisClient,
    private readonly client: PromiseClient<typeof userActivity.UserActivityServiceService>,
    private readonly log: Logger,
    private readonly keyPrefix: string,
  ) {}

  /**
   * Records the actor's activity today, in the background; the promise is for tests. The user is
   * known by id and creation time: an id alone may name another user in a database that was reset
   * or restored while Redis kept its keys (test runs sharing one Redis do exactly that).
   */
  record(actor: common.Actor, createdAt: Date | undefined, now = new Date()): Promise<void> {
    if (!actor.userId) return Promise.resolve();
    const day = now.toISOString().slice(0, 10);
    const local = `${actor.userId}:${createdAt?.getTime() ?? 0}:${day}`;
    if (this.seen.has(local)) return Promise.resolve();
    this.seen.set(local, true);
    return this.recordOnce(actor, `${this.keyPrefix}activity:${local}`).catch((err) => {
      this.seen.delete(local);
      this.log.warn({ err, user_id: actor.userId }, "could not record a user's activity");
    });
  }

  private async recordOnce(actor: common.Actor, key: string) {
    // Two days: the key outlives its day in every time zone a clock may be off by.
    const first = await this.redis.set(key, "1", { NX: true, EX: 2 * DAY_SECONDS });
    if (first !== "OK") return;
    try {
      await this.client.recordUserActivity({ actor });
    } catch (err) {
      await this.redis.del(key).catch(() => undefined);
      throw err;
    }
  }
}

/** After authentication: the caller's activity is recorded, without the request waiting for it. */
export function recordActivity(
  recorder: UserActivityRecorder,
  impersonationOf: (ctx: ApiContext) => boolean,
) {
  return async function recordUserActivity(ctx: ApiContext, next: Next) {
    const { actor } = ctx.state;
    if (actor.userId && !actor.impersonatorId && !impersonationOf(ctx))
      void recorder.record(actor, ctx.state.user?.createdAt);
    return next();
  };
}
