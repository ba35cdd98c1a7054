import { createHash, randomBytes } from "node:crypto";
import type { Context } from "koa";
import type { RedisClient } from "@canopy/kit";
import type { GatewayConfig } from "../config";
import { HttpError } from "../http/errors";

export const SESSION_COOKIE = "_canopy_session";
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/** Sessions nobody has signed in to yet (a sign-in form, an authorize request) do not last long. */
const PRE_AUTH_SECONDS = 3600;

export interface SessionData {
  /** 0 until someone signs in. */
  userId: number;
  /** The per-session CSRF token every form carries. */
  csrf: string;
  /** Milliseconds since the epoch; 0 before sign-in. */
  signedInAt: number;
  /** Where to go after signing in: a same-origin path, checked again when used. */
  returnTo?: string;
  /** A one-time message for the next page ("The application was deleted."). */
  notice?: string;
  /**
   * Half signed in: this user's password was right and the two-factor code is still to come
   * (milliseconds since the epoch when the password was accepted).
   */
  otpUserId?: number;
  otpStartedAt?: number;
}

export interface Session {
  id: string;
  data: SessionData;
}

const newToken = () => randomBytes(32).toString("base64url");

/**
 * Web sessions in Redis. The cookie holds a random id; Redis holds the data under a SHA-256 of that
 * id, so someone who can read Redis still cannot replay a session. Every use extends the lifetime.
 */
export class SessionStore {
  private readonly secure: boolean;
  private readonly prefix: string;
  private readonly signedInSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    config: GatewayConfig,
  ) {
    this.secure = new URL(config.CANOPY_EXTERNAL_URL).protocol === "https:";
    this.signedInSeconds = config.CANOPY_SESSION_HOURS * 3600;
    this.prefix = config.CANOPY_REDIS_KEY_PREFIX;
  }

  /** The request's session, or undefined when it has no (live) one. */
  async load(ctx: Context): Promise<Session | undefined> {
    const id = ctx.cookies.get(SESSION_COOKIE);
    if (!id || !SESSION_ID.test(id)) return undefined;
    const raw = await this.redisCall(() => this.redis.get(keyOf(this.prefix, id)));
    const data = raw ? parseSession(raw) : undefined;
    if (!data) return undefined;
    await this.redisCall(() => this.redis.expire(keyOf(this.prefix, id), this.ttlOf(data)));
    return { id, data };
  }

  /** A new session with a fresh id and CSRF token; the cookie is set on the response. */
  async create(
    ctx: Context,
    data: Omit<SessionData, "csrf"> = { userId: 0, signedInAt: 0 },
  ): Promise<Session> {
    const session = { id: newToken(), data: { ...data, csrf: newToken() } };
    await this.save(session);
    ctx.append("Set-Cookie", this.cookie(session.id));
    return session;
  }

  async save(session: Session): Promise<void> {
    const ttl = this.ttlOf(session.data);
    await this.redisCall(() =>
      this.redis.set(keyOf(this.prefix, session.id), JSON.stringify(session.data), { EX: ttl }),
    );
  }

  /** Forgets the session in Redis and tells the browser to drop the cookie. */
  async destroy(ctx: Context, session: Session | undefined): Promise<void> {
    if (session) await this.redisCall(() => this.redis.del(keyOf(this.prefix, session.id)));
    ctx.append("Set-Cookie", this.cookie("", 0));
  }

  /**
   * Sign-in: the old id (which an attacker may have planted) stops working and a new one, with a
   * new CSRF token, takes its place.
   */
  async regenerate(
    ctx: Context,
    old: Session | undefined,
    data: Omit<SessionData, "csrf">,
  ): Promise<Session> {
    if (old) await this.redisCall(() => this.redis.del(keyOf(this.prefix, old.id)));
    return this.create(ctx, data);
  }

  private ttlOf(data: SessionData) {
    return data.userId ? this.signedInSeconds : Math.min(PRE_AUTH_SECONDS, this.signedInSeconds);
  }

  // Written by hand: Koa's cookie helper refuses `Secure` on a plain-HTTP hop behind a TLS proxy.
  private cookie(value: string, maxAge?: number) {
    const parts = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax"];
    if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`, "Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    if (this.secure) parts.push("Secure");
    return parts.join("; ");
  }

  /**
   * A session lives only in Redis: without it no page can know who is signed in or check a form's
   * CSRF token, so pages answer 503 at once, as the API does for a dependency that is down (the
   * client refuses commands while its connection is lost; kit/redis.ts).
   */
  private async redisCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch {
      throw sessionStoreDown();
    }
  }
}

/** GitLab's shape for a dependency that is down, naming which one. */
const sessionStoreDown = () =>
  new HttpError(503, { message: "503 Service Unavailable - the session store (Redis) is not answering" });

const keyOf = (prefix: string, id: string) =>
  `${prefix}session:${createHash("sha256").update(id).digest("hex")}`;

function parseSession(raw: string): SessionData | undefined {
  try {
    const data = JSON.parse(raw) as SessionData;
    return typeof data.csrf === "string" && Number.isSafeInteger(data.userId) ? data : undefined;
  } catch {
    return undefined;
  }
}

export const sessionOf = (ctx: Context): Session | undefined => ctx.state.session;
