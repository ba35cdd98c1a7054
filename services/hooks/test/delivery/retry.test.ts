import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isRetryable,
  nextRetry,
  parseRetryAfter,
} from "../../src/delivery";

const response = (status: number, headers: Record<string, string> = {}) => ({
  kind: "response" as const,
  status,
  headers,
});
const now = new Date("2026-03-01T12:00:00Z");

describe("what is retried", () => {
  it.each([
    [response(500), true],
    [response(503), true],
    [response(429), true],
    [{ kind: "error" as const, failure: "network" as const }, true],
    [{ kind: "error" as const, failure: "timeout" as const }, true],
    [response(200), false],
    [response(302), false],
    [response(404), false],
    [response(400), false],
    [{ kind: "error" as const, failure: "blocked" as const }, false],
    [{ kind: "error" as const, failure: "request_too_large" as const }, false],
    [{ kind: "error" as const, failure: "too_many_redirects" as const }, false],
  ])("%j: %s", (result, retryable) => {
    expect(isRetryable(result)).toBe(retryable);
  });
});

describe("backoff", () => {
  it("doubles from the base, with equal jitter, up to the cap", () => {
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY, () => 0)).toBe(5_000);
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY, () => 0.999999)).toBe(10_000);
    expect(backoffDelay(3, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(30_000);
    expect(backoffDelay(30, DEFAULT_RETRY_POLICY, () => 0)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs / 2);
  });

  it("stops after the attempt limit", () => {
    expect(nextRetry(4, response(500), { random: () => 0 })).toEqual({ retry: true, delayMs: 40_000 });
    expect(nextRetry(5, response(500), { random: () => 0 })).toEqual({ retry: false });
    expect(nextRetry(1, response(404))).toEqual({ retry: false });
  });
});

describe("Retry-After", () => {
  it("reads delay seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sunday, 01-Mar-26 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it("replaces the backoff, capped", () => {
    expect(nextRetry(1, response(429, { "retry-after": "7" }), { now })).toEqual({
      retry: true,
      delayMs: 7_000,
    });
    expect(nextRetry(1, response(503, { "retry-after": "86400" }), { now })).toEqual({
      retry: true,
      delayMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    });
    expect(nextRetry(1, response(503, { "retry-after": "bogus" }), { now, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 5_000,
    });
  });
});
