/**
 * One webhook delivery over HTTP: POST the body, follow redirects by hand (each hop checked by
 * the URL guard and connected to the addresses it checked), and describe what happened as a plain
 * outcome. Nothing throws: every failure is an `error` outcome carrying the text GitLab would log.
 *
 * Node's http/https do the protocol; the guard's addresses reach them through a `lookup` that
 * answers only with those addresses, while the URL keeps its host name, so the Host header, SNI and
 * the certificate check still use the name.
 *
 * Connections are kept alive and used again (connection-pool.ts), but only for a request whose own
 * check allowed exactly the addresses the connection was made to.
 */
import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import { KEPT_ALIVE, pinOf, reusedAndDropped } from "./connection-pool";
import { pinnedLookup } from "./resolver";
import { truncateBytes } from "./truncate";
import { planConnection, type ConnectionPlan, type UrlGuardOptions } from "./url-guard";
import {
  blockedMessage,
  networkErrorMessage,
  requestTooLargeMessage,
  responseTooLargeMessage,
  timeoutMessage,
  TOO_MANY_REDIRECTS,
  type FailurePlace,
} from "./network-errors";

/** GitLab's `gitlab.webhook_timeout` default. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** WebHookService::REQUEST_BODY_SIZE_LIMIT: a larger body is not sent at all. */
export const REQUEST_BODY_LIMIT_BYTES = 25 * 1024 * 1024;
/** `max_http_response_size_limit`'s default (100 MB): a larger answer is an error. */
export const DEFAULT_MAX_RESPONSE_BYTES = 100 * 1024 * 1024;
/** WebHookService::RESPONSE_BODY_SIZE_LIMIT: the log keeps no more of the answer than this. */
export const RESPONSE_BODY_KEEP_BYTES = 8 * 1024;
/** HTTParty's redirect budget: five requests in all, so the fifth redirect is an error. */
export const MAX_REQUESTS_PER_DELIVERY = 5;

export interface SendRequest {
  /** The interpolated hook URL; userinfo in it becomes Basic auth. */
  url: string;
  body: string | Buffer;
  headers: Record<string, string>;
  guard: UrlGuardOptions;
  /** The hook's `enable_ssl_verification`. */
  verifyTls?: boolean;
  /** Extra CAs to trust (tests with a self-signed receiver). */
  ca?: string | Buffer;
  timeoutMs?: number;
  maxResponseBytes?: number;
  keepResponseBytes?: number;
}

export type SendOutcome =
  | {
      kind: "response";
      status: number;
      /** Lower-case names; repeated headers joined with ", ". */
      headers: Record<string, string>;
      /** The answer as UTF-8 text, cut to `keepResponseBytes` bytes ending in "…" (the log's limit). */
      body: string;
      durationMs: number;
    }
  | { kind: "error"; failure: SendFailure; message: string; durationMs: number };

/**
 * Why no response came back. `network` and `timeout` may pass on a later attempt; the others
 * will not (the retry policy reads this).
 */
export type SendFailure =
  | "network"
  | "timeout"
  | "blocked"
  | "request_too_large"
  | "response_too_large"
  | "too_many_redirects"
  | "invalid_request";

/** What one request of a delivery sends: the POST, or the GET a 301/302/303 turns it into. */
interface Hop {
  method: "POST" | "GET";
  body: Buffer | null;
}

type HopResult =
  | { kind: "response"; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: "error"; failure: SendFailure; message: string };

/** Moves `user:password@` out of the URL into an Authorization header, as GitLab does. */
export function takeBasicAuth(rawUrl: string, headers: Record<string, string>) {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { url: rawUrl, headers };
  }
  if (!url.username && !url.password) return { url: rawUrl, headers };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  const rest = Object.fromEntries(
    Object.entries(headers).filter(([k]) => k.toLowerCase() !== "authorization"),
  );
  const basic = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
  return { url: url.toString(), headers: { ...rest, Authorization: basic } };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** 307/308 repeat the POST with its body; the other redirects become a GET without one (HTTParty). */
const hopAfterRedirect = (hop: Hop, status: number): Hop =>
  status === 307 || status === 308 ? hop : { method: "GET", body: null };

/** Delivers `request`; never throws. */
export async function sendWebhook(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const fail = (failure: SendFailure, message: string): SendOutcome => ({
    kind: "error",
    failure,
    message,
    durationMs: elapsed(),
  });
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, "utf8");
  if (body.length > REQUEST_BODY_LIMIT_BYTES)
    return fail("request_too_large", requestTooLargeMessage(REQUEST_BODY_LIMIT_BYTES));

  const { url, headers } = takeBasicAuth(request.url, request.headers);
  const deadline = started + (request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let hop: Hop = { method: "POST", body };
  let target = url;
  for (let requests = 1; ; requests++) {
    const check = await planConnection(target, request.guard);
    if (!check.ok) return fail("blocked", blockedMessage(check.reason));
    const result = await sendHop(hop, check.plan, headers, request, deadline);
    if (result.kind === "error") return fail(result.failure, result.message);
    const location = result.headers["location"];
    if (!REDIRECTS.has(result.status) || !location) {
      const keep = request.keepResponseBytes ?? RESPONSE_BODY_KEEP_BYTES;
      // Read a few bytes past the limit so a cut body ends in "…" as GitLab's log shows it.
      const text = truncateBytes(result.body.toString("utf8"), keep);
      return {
        kind: "response",
        status: result.status,
        headers: result.headers,
        body: text,
        durationMs: elapsed(),
      };
    }
    if (requests >= MAX_REQUESTS_PER_DELIVERY) return fail("too_many_redirects", TOO_MANY_REDIRECTS);
    hop = hopAfterRedirect(hop, result.status);
    target = new URL(location, check.plan.url).toString();
  }
}

/**
 * One HTTP request, on a kept-alive connection when one is free. A kept connection the receiver
 * closed meanwhile fails before any answer: that request goes once more, on a new connection.
 */
async function sendHop(
  hop: Hop,
  plan: ConnectionPlan,
  headers: Record<string, string>,
  request: SendRequest,
  deadline: number,
): Promise<HopResult> {
  const first = await sendHopOn(true, hop, plan, headers, request, deadline);
  return first.droppedKeptConnection ? sendHopOn(false, hop, plan, headers, request, deadline) : first;
}

/** One HTTP request bounded by the delivery's deadline, on a kept connection if `keepAlive`. */
function sendHopOn(
  keepAlive: boolean,
  hop: Hop,
  plan: ConnectionPlan,
  headers: Record<string, string>,
  request: SendRequest,
  deadline: number,
): Promise<HopResult & { droppedKeptConnection?: boolean }> {
  const place: FailurePlace = {
    address: plan.candidates?.[0]?.address ?? plan.url.hostname,
    port: plan.port,
    connected: false,
  };
  const secure = plan.url.protocol === "https:";
  const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const keepBytes = (request.keepResponseBytes ?? RESPONSE_BODY_KEEP_BYTES) + 4;
  return new Promise<HopResult & { droppedKeptConnection?: boolean }>((resolve) => {
    let req: http.ClientRequest;
    try {
      const options: https.RequestOptions & { pin: string } = {
        method: hop.method,
        headers: hop.body ? { ...headers, "Content-Length": String(hop.body.length) } : headers,
        agent: keepAlive ? (secure ? KEPT_ALIVE.https : KEPT_ALIVE.http) : false,
        // Part of the pool's key: a kept connection serves only requests checked to its addresses.
        pin: pinOf(plan),
        lookup: plan.candidates ? pinnedLookup(plan.candidates) : undefined,
        rejectUnauthorized: request.verifyTls ?? true,
        ca: request.ca,
      };
      req = (secure ? https : http).request(plan.url, options);
    } catch (error) {
      // Invalid header names or values (CR, LF, NUL) are refused before anything is sent.
      resolve({ kind: "error", failure: "invalid_request", message: (error as Error).message });
      return;
    }
    const timer = setTimeout(
      () => {
        finish({ kind: "error", failure: "timeout", message: timeoutMessage(place) });
        req.destroy();
      },
      Math.max(0, deadline - performance.now()),
    );
    let settled = false;
    // Only the request's events call this, all after `timer` exists.
    function finish(result: HopResult & { droppedKeptConnection?: boolean }) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    }
    req.on("socket", (socket) => {
      // A kept connection is connected already (and says so no more).
      if (req.reusedSocket) place.connected = true;
      else socket.once(secure ? "secureConnect" : "connect", () => (place.connected = true));
    });
    let answered = false;
    req.on("error", (error) => {
      if (!answered && reusedAndDropped(req, error)) {
        finish({ kind: "error", failure: "network", message: "", droppedKeptConnection: true });
        return;
      }
      finish({ kind: "error", failure: "network", message: networkErrorMessage(error, place) });
    });
    req.on("response", (res) => {
      answered = true;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let total = 0;
      res.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBytes) {
          finish({
            kind: "error",
            failure: "response_too_large",
            message: responseTooLargeMessage(maxBytes),
          });
          req.destroy();
          return;
        }
        if (keptBytes < keepBytes) {
          kept.push(chunk.subarray(0, keepBytes - keptBytes));
          keptBytes += Math.min(chunk.length, keepBytes - keptBytes);
        }
      });
      res.on("error", (error) =>
        finish({ kind: "error", failure: "network", message: networkErrorMessage(error, place) }),
      );
      res.on("end", () => {
        const headersOut = Object.fromEntries(
          Object.entries(res.headersDistinct).map(([name, values]) => [name, (values ?? []).join(", ")]),
        );
        finish({
          kind: "response",
          status: res.statusCode ?? 0,
          headers: headersOut,
          body: Buffer.concat(kept),
        });
      });
    });
    req.end(hop.body ?? undefined);
  });
}
