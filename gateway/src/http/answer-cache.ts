import { createHash } from "node:crypto";
import { gzip } from "node:zlib";
import { LRUCache } from "lru-cache";
import type { Logger, RedisClient } from "@canopy/kit";
import type { common } from "@canopy/protos";

/** A rendered answer: what the handler set, replayed as is. */
export interface CachedAnswer {
  status: number;
  /** The JSON text as UTF-8 bytes: encoded once, not on every replay. */
  body: Buffer;
  headers: Record<string, string>;
  /** The body gzipped, made once the answer is served a second time (see `gzipped`). */
  gzip?: Buffer | "pending";
}

/** Below this a gzip header costs more than it saves. */
const GZIP_MIN_BYTES = 1024;

/**
 * Rendered answers of the group and project reads (lists and details), per caller and request, kept
 * in this process and valid only under the current *generation*: a counter in Redis, shared by every
 * gateway.
 *
 * - Any write through any gateway bumps it before its answer leaves, so a client reads its own writes
 *   on every gateway, however its requests are spread.
 * - Changes made without a request (the deletion scheduler, a user deleted in auth) bump it when
 *   their event reaches a gateway (server.ts); such answers may lag that event by milliseconds. The
 *   projects service copies groups and users from events: it says when a copy changed
 *   (ProjectCopiesChanged, once the change is readable there), which bumps it again.
 * - The UTC date is part of the key: memberships and shares expire at midnight without any write.
 * - When Redis cannot say the generation, nothing is served from or kept in the cache.
 * - When the connection to Redis comes back, what was kept before is dropped and keys start afresh
 *   (`connection`): a Redis that restarted empty counts generations from 0 again and would otherwise
 *   hand out numbers older answers were kept under, and writes made while this gateway could not
 *   reach it bumped nothing.
 */
export class AnswerCache {
  private readonly local: LRUCache<string, CachedAnswer>;
  private readonly generationKey: string;
  /** How many times the connection to Redis came back; part of every key. */
  private connection = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly log: Logger,
    options: { keyPrefix: string; ttlMs: number; maxBytes?: number },
  ) {
    this.generationKey = `${options.keyPrefix}answers:generation`;
    this.local = new LRUCache<string, CachedAnswer>({
      ttl: Math.max(options.ttlMs, 1),
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (a) => a.body.length + (a.gzip instanceof Buffer ? a.gzip.length : 0) + 256,
    });
    redis.on("ready", () => {
      this.connection++;
      this.local.clear();
    });
  }

  get enabled(): boolean {
    return this.local.ttl > 1;
  }

  /** The key of a request's answer under the current generation, or undefined to bypass the cache. */
  async keyFor(
    actor: common.Actor,
    path: string,
    query: Record<string, unknown>,
  ): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    let generation: string | null;
    try {
      generation = await this.redis.get(this.generationKey);
    } catch {
      return undefined;
    }
    // Tokens given as parameters identify the caller, who is in the key already; never kept.
    const { private_token: _p, access_token: _a, ...rest } = query;
    const request = JSON.stringify([path, Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))]);
    const today = new Date().toISOString().slice(0, 10);
    const who = `${actor.userId}:${actor.admin ? 1 : 0}:${actor.external ? 1 : 0}`;
    return createHash("sha256")
      .update(`${this.connection}|${generation ?? 0}|${today}|${who}|${request}`)
      .digest("base64url");
  }

  get(key: string): CachedAnswer | undefined {
    return this.local.get(key);
  }

  set(key: string, answer: CachedAnswer): void {
    this.local.set(key, answer);
  }

  /**
   * The kept answer's body gzipped, for a client that accepts it; undefined while it is being made
   * (that replay goes out as is). An answer is compressed only when it is replayed: one that is
   * never asked for again (the first read after every write) costs no compression at all, and a
   * replayed one is compressed once, off the event loop, for every later replay.
   */
  gzipped(key: string, answer: CachedAnswer): Buffer | undefined {
    if (answer.gzip instanceof Buffer) return answer.gzip;
    if (answer.gzip || answer.body.length < GZIP_MIN_BYTES) return undefined;
    answer.gzip = "pending";
    gzip(answer.body, (err, zipped) => {
      if (err) {
        answer.gzip = undefined;
        return;
      }
      answer.gzip = zipped;
      // Set again so the cache counts the compressed bytes too (only if the entry is still this one).
      if (this.local.peek(key) === answer) this.local.set(key, answer);
    });
    return undefined;
  }

  /** Every cached answer, on every gateway, is stale from now on. */
  async invalidate(): Promise<void> {
    this.local.clear();
    if (!this.enabled) return;
    try {
      await this.redis.incr(this.generationKey);
    } catch (err) {
      // Other gateways keep their answers until their TTL or the change's event: logged, not failed.
      this.log.warn({ err }, "could not bump the answer generation");
    }
  }
}
