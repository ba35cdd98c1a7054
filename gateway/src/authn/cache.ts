import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Logger, PromiseClient, RedisClient } from "@canopy/kit";
import { auth, type common } from "@canopy/protos";

type Answer = auth.AuthenticateResponse;
type Entry = { answer: Answer; userId: number; token: string };

/** Personal access tokens and OAuth tokens number their ids apart, so an id alone is ambiguous. */
const tokenRef = (kind: common.TokenKind, id: number) => `${kind}:${id}`;

const REFUSAL_TTL_MS = 10_000;

const keyOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Answers of the auth service's Authenticate, cached twice: in this process (no I/O at all) and in
 * Redis (shared by gateways, survives restarts). Keys are SHA-256 of the token, never the token.
 *
 * Answers are dropped at once when a token is revoked or its user blocked, updated or deleted
 * (`dropToken` / `dropUser`, fed by events). Refusals are kept only briefly and only in process.
 * An `epoch` guards the race where an event arrives while a lookup for the same token is in flight:
 * the stale answer is used once but not cached.
 *
 * Redis down: answers come from this process or the auth service, and are not shared. A drop that
 * could not reach Redis is kept and done again when the connection is back; until then no shared
 * answer is trusted (one may be of a token revoked meanwhile, if Redis was cut off rather than
 * restarted).
 */
export class AuthenticationCache {
  private readonly local: LRUCache<string, Entry>;
  private readonly byToken = new Map<string, Set<string>>();
  private readonly byUser = new Map<number, Set<string>>();
  private epoch = 0;
  /** Drops of shared answers that failed, by what they drop: redone on reconnect. */
  private readonly undoneDrops = new Map<string, () => Promise<unknown>>();

  constructor(
    private readonly client: PromiseClient<typeof auth.AuthServiceService>,
    private readonly redis: RedisClient,
    private readonly log: Logger,
    private readonly ttlMs: number,
    private readonly keyPrefix = "canopy:",
    maxEntries = 50_000,
  ) {
    this.local = new LRUCache<string, Entry>({
      max: maxEntries,
      ttl: Math.max(ttlMs, 1),
      dispose: (entry, key) => {
        this.byToken.get(entry.token)?.delete(key);
        this.byUser.get(entry.userId)?.delete(key);
      },
    });
    redis.on("ready", () => void this.redoDrops());
  }

  async authenticate(token: string): Promise<Answer> {
    const key = keyOf(token);
    const hit = this.local.get(key);
    if (hit) return hit.answer;
    const epoch = this.epoch;
    const shared = await this.readShared(key);
    const answer = shared ?? (await this.client.authenticate({ token }));
    if (epoch === this.epoch) await this.remember(key, answer, !shared);
    return answer;
  }

  /** Forgets every answer for a token id (revoked). */
  async dropToken(kind: common.TokenKind, tokenId: number): Promise<void> {
    this.epoch++;
    this.dropLocal(this.byToken.get(tokenRef(kind, tokenId)));
    await this.dropShared(this.redisIndex("token", tokenRef(kind, tokenId)));
  }

  /**
   * Forgets the answer for a token this gateway has just revoked by its value: the revocation event
   * drops it everywhere, but the caller's next request may come back here before the event does.
   */
  async dropTokenValue(token: string): Promise<void> {
    this.epoch++;
    const key = keyOf(token);
    const entry = this.local.get(key);
    if (entry?.answer.actor) {
      const { tokenKind, tokenId } = entry.answer.actor;
      return this.dropToken(tokenKind, tokenId);
    }
    this.local.delete(key);
    await this.dropSharedWith(this.redisKey(key), () => this.redis.del(this.redisKey(key)));
  }

  /** Forgets every answer for a user's tokens (blocked, deleted, admin flag changed). */
  async dropUser(userId: number): Promise<void> {
    this.epoch++;
    this.dropLocal(this.byUser.get(userId));
    // Refusals carry no user; a blocked user's refusal must not outlive an unblock.
    for (const [key, entry] of this.local.entries()) if (!entry.answer.actor) this.local.delete(key);
    await this.dropShared(this.redisIndex("user", userId));
  }

  private ttlFor(answer: Answer): number {
    if (!answer.actor) return Math.min(this.ttlMs, REFUSAL_TTL_MS);
    const untilExpiry = answer.validUntil ? answer.validUntil.getTime() - Date.now() : Infinity;
    return Math.max(0, Math.min(this.ttlMs, untilExpiry));
  }

  private async remember(key: string, answer: Answer, share: boolean) {
    const ttl = this.ttlFor(answer);
    if (ttl <= 0) return;
    const userId = answer.actor?.userId ?? 0;
    const token = tokenRef(answer.actor?.tokenKind ?? 0, answer.actor?.tokenId ?? 0);
    this.local.set(key, { answer, userId, token }, { ttl });
    if (!answer.actor) return;
    (this.byToken.get(token) ?? this.byToken.set(token, new Set()).get(token)!).add(key);
    (this.byUser.get(userId) ?? this.byUser.set(userId, new Set()).get(userId)!).add(key);
    if (!share) return;
    try {
      const encoded = Buffer.from(auth.AuthenticateResponse.encode(answer).finish()).toString("base64");
      await this.redis
        .multi()
        .set(this.redisKey(key), encoded, { PX: ttl })
        .sAdd(this.redisIndex("token", token), key)
        .pExpire(this.redisIndex("token", token), this.ttlMs)
        .sAdd(this.redisIndex("user", userId), key)
        .pExpire(this.redisIndex("user", userId), this.ttlMs)
        .exec();
    } catch (err) {
      this.log.warn({ err }, "could not share an authentication answer in redis");
    }
  }

  private redisKey(key: string) {
    return `${this.keyPrefix}authn:${key}`;
  }

  private redisIndex(kind: "token" | "user", id: number | string) {
    return `${this.keyPrefix}authn:${kind}:${id}`;
  }

  private async readShared(key: string): Promise<Answer | undefined> {
    if (this.undoneDrops.size) return undefined;
    try {
      const raw = await this.redis.get(this.redisKey(key));
      return raw ? auth.AuthenticateResponse.decode(Buffer.from(raw, "base64")) : undefined;
    } catch {
      return undefined; // Redis down: ask the auth service.
    }
  }

  private dropLocal(keys: Set<string> | undefined) {
    for (const key of [...(keys ?? [])]) this.local.delete(key);
  }

  private async dropShared(index: string) {
    await this.dropSharedWith(index, async () => {
      const keys = await this.redis.sMembers(index);
      await this.redis.del([index, ...keys.map((k) => this.redisKey(k))]);
    });
  }

  private async dropSharedWith(what: string, drop: () => Promise<unknown>) {
    try {
      await drop();
      this.undoneDrops.delete(what);
    } catch (err) {
      this.undoneDrops.set(what, drop);
      this.log.warn({ err }, "could not drop shared authentication answers; done again when redis is back");
    }
  }

  private async redoDrops() {
    for (const [what, drop] of [...this.undoneDrops]) await this.dropSharedWith(what, drop);
  }
}
