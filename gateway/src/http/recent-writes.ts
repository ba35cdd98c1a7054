import type { Next } from "koa";
import {
  mergePositions,
  requestContext,
  type EventPositions,
  type Logger,
  type RedisClient,
} from "@canopy/kit";
import type { ApiContext } from "./api-context";

/**
 * Raises each field of one user's hash to the given position where it is further, and restarts its
 * time to live. KEYS[1]: the hash; ARGV: ttl in ms, then context / position pairs.
 */
const RAISE = `
for i = 2, #ARGV, 2 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > current then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/**
 * Read your own writes across services (the kit's events/positions.ts): where a user's recent
 * writes, and writes that concern them (a membership given to them), reached the event stream, per
 * context, in one Redis hash per user shared by every gateway, for a short while
 * (`CANOPY_READ_YOUR_WRITES_SECONDS`).
 *
 * - After a request that wrote, before its answer leaves, the positions the services answered are
 *   raised for the caller and for the users the events named (`remember`), so the client's next
 *   request, on whichever gateway, finds them.
 * - Every signed-in request reads the caller's hash alongside its rate-limit count (`of`): both go to
 *   Redis in the same tick, so it adds no round trip; every call of the request then carries it
 *   (`canopy-read-after`, the kit's client), and a service whose copies are behind waits for them.
 *   A caller who wrote nothing lately has no hash: the read finds nothing and calls carry nothing.
 * - Redis unreachable: nothing is read or kept, and requests answer as they would without it.
 */
export class RecentWrites {
  constructor(
    private readonly redis: RedisClient,
    private readonly log: Logger,
    private readonly options: { keyPrefix: string; ttlMs: number },
  ) {}

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  /** Where the user's recent writes reached, or undefined when there are none (or Redis cannot say). */
  async of(userId: number): Promise<EventPositions | undefined> {
    if (!this.enabled || !userId) return undefined;
    try {
      const hash = await this.redis.hGetAll(this.key(userId));
      const positions: EventPositions = new Map();
      for (const [context, seq] of Object.entries(hash)) {
        const n = Number(seq);
        if (Number.isSafeInteger(n) && n > 0) positions.set(context, n);
      }
      return positions.size ? positions : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keeps `positions` for the caller and for `users` (the users the written events concern). */
  async remember(userIds: Iterable<number>, positions: EventPositions): Promise<void> {
    if (!this.enabled || !positions.size) return;
    const pairs = [...positions].flatMap(([context, seq]) => [context, String(seq)]);
    const args = [String(this.options.ttlMs), ...pairs];
    // One script per user (their keys may live on different cluster slots); sent in the same tick.
    const users = [...new Set(userIds)].filter((id) => id > 0);
    try {
      await Promise.all(users.map((id) => this.redis.eval(RAISE, { keys: [this.key(id)], arguments: args })));
    } catch (err) {
      this.log.warn({ err }, "could not remember a caller's writes in redis");
    }
  }

  private key(userId: number) {
    return `${this.options.keyPrefix}writes:user:${userId}`;
  }
}

/**
 * After the request, before its answer leaves: keeps where its writes reached for the caller and
 * the users they concern. Placed after `authenticate` (it needs the actor).
 */
export function rememberWrites(writes: RecentWrites) {
  return async function rememberRequestWrites(ctx: ApiContext, next: Next) {
    try {
      await next();
    } finally {
      const written = requestContext.getStore()?.written;
      if (written?.positions.size) {
        const positions = mergePositions(new Map(), written.positions);
        await writes.remember([ctx.state.actor.userId, ...written.users], positions);
      }
    }
  };
}
