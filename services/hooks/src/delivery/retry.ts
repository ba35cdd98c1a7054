/**
 * When a failed delivery is tried again, and after how long. GitLab itself never retries a hook
 * (a non-2xx answer or a network error is logged and that is all); Canopy may, for failures that
 * a later attempt can cure: a network error, a timeout, 429 and 5xx. Everything here is pure: the
 * clock and the random source are arguments.
 */
import type { SendOutcome } from "./send";

export interface RetryPolicy {
  /** The first retry's delay before jitter. */
  baseDelayMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff never grows beyond this. */
  maxDelayMs: number;
  /** A receiver's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 10_000,
  maxAttempts: 5,
  maxDelayMs: 15 * 60_000,
  maxRetryAfterMs: 60 * 60_000,
};

/** What the retry policy reads of an attempt: `SendOutcome` fits. */
export type AttemptResult =
  | { kind: "response"; status: number; headers: Record<string, string> }
  | { kind: "error"; failure: Extract<SendOutcome, { kind: "error" }>["failure"] };

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

/** A failure that a later attempt may not repeat. */
export function isRetryable(result: AttemptResult): boolean {
  if (result.kind === "error") return result.failure === "network" || result.failure === "timeout";
  return result.status === 429 || (result.status >= 500 && result.status <= 599);
}

/**
 * A Retry-After value (delay seconds or an HTTP-date) as milliseconds from `now`; null when absent
 * or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the IMF-fixdate and the two obsolete forms HTTP allows, all of which name a weekday.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * Exponential backoff with equal jitter: attempt n waits between half and all of
 * base * 2^(n-1), capped. `random` returns [0, 1).
 */
export function backoffDelay(attemptsMade: number, policy: RetryPolicy, random: () => number): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, attemptsMade - 1);
  const capped = Math.min(exponential, policy.maxDelayMs);
  return Math.round(capped / 2 + random() * (capped / 2));
}

/** Whether to try again after `attemptsMade` attempts, the last of which gave `result`. */
export function nextRetry(
  attemptsMade: number,
  result: AttemptResult,
  options: { policy?: RetryPolicy; now?: Date; random?: () => number } = {},
): RetryDecision {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  if (attemptsMade >= policy.maxAttempts || !isRetryable(result)) return { retry: false };
  if (result.kind === "response") {
    const retryAfter = parseRetryAfter(result.headers["retry-after"], options.now ?? new Date());
    if (retryAfter !== null) return { retry: true, delayMs: Math.min(retryAfter, policy.maxRetryAfterMs) };
  }
  return { retry: true, delayMs: backoffDelay(attemptsMade, policy, options.random ?? Math.random) };
}
