// Plain HTTP against a gateway, the way curl would: no client library between the test and the wire.
import { randomBytes } from "node:crypto";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface CallOptions {
  token?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers["PRIVATE-TOKEN"] = options.token;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Like `call`, but fails with the whole reply unless the status is `expected`. */
export async function expectCall(
  baseUrl: string,
  path: string,
  expected: number,
  options: CallOptions = {},
): Promise<Reply> {
  const reply = await call(baseUrl, path, options);
  if (reply.status !== expected) {
    throw new Error(
      `${options.method ?? "GET"} ${path}: expected ${expected}, got ${reply.status} ${reply.text}`,
    );
  }
  return reply;
}

/**
 * How long a test polls for an event to reach every gateway (a revocation, a block). Generous, so a
 * busy machine does not fail it, yet far below the gateway's 60 s authentication cache: without the
 * event the condition is never met and the test still fails.
 */
export const PROPAGATION_MS = 10_000;

/** Calls `probe` until it returns true or `timeoutMs` passed; resolves with the time it took. */
export async function within(timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const unique = (prefix: string) => `${prefix}${randomBytes(4).toString("hex")}`;

export interface CreatedUser {
  id: number;
  username: string;
  password: string;
}

/** Everything a test creates that must never appear in a log line. */
export class Secrets {
  readonly values = new Set<string>();
  add<T extends string>(value: T): T {
    this.values.add(value);
    return value;
  }
}

/** A user created by root, its password recorded as a secret. */
export async function createUser(baseUrl: string, rootToken: string, secrets: Secrets): Promise<CreatedUser> {
  const username = unique("e2e-user-");
  const password = secrets.add(`pw-${randomBytes(12).toString("base64url")}`);
  const reply = await expectCall(baseUrl, "/api/v4/users", 201, {
    token: rootToken,
    method: "POST",
    body: { username, email: `${username}@example.com`, name: username, password, skip_confirmation: true },
  });
  return { id: (reply.json as { id: number }).id, username, password };
}

/** A personal access token for `userId` created by root; its secret recorded. */
export async function createToken(
  baseUrl: string,
  rootToken: string,
  userId: number,
  secrets: Secrets,
  scopes = ["api"],
): Promise<{ id: number; token: string }> {
  const reply = await expectCall(baseUrl, `/api/v4/users/${userId}/personal_access_tokens`, 201, {
    token: rootToken,
    method: "POST",
    body: { name: unique("e2e-token-"), scopes },
  });
  const { id, token } = reply.json as { id: number; token: string };
  secrets.add(token);
  return { id, token };
}
