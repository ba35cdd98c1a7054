/**
 * The headers of one delivery attempt (app/services/web_hook_service.rb `build_headers`), and the
 * copy the delivery log keeps. GitLab merges the hook's custom headers *under* its own:
 * `custom_headers.merge(build_headers)`, and Net::HTTP folds names case-insensitively with the
 * later value winning, so a custom header named like a built-in one that is sent (in any case) is
 * dropped. A custom `X-Gitlab-Token` still goes out when the hook has no token, as in GitLab.
 */
import { randomUUID } from "node:crypto";
import { REDACTED } from "@canopy/kit";
import { signatureHeaders } from "./signature";

export interface DeliveryHeaderInput {
  /** The `X-Gitlab-Event` value, e.g. "Member Hook" (payloads' `eventHeaderOf`). */
  event: string;
  /** The GitLab version Canopy reports (`GET /version`), for `User-Agent: GitLab/<version>`. */
  gitlabVersion: string;
  /** The instance's external URL, for `X-Gitlab-Instance`. */
  instanceUrl: string;
  /** Stable per (event, hook) delivery: retries and resends reuse it. */
  idempotencyKey: string;
  /** The recursion-detection UUID: the triggering request's `X-Gitlab-Event-UUID`, or a new one. */
  eventUuid: string;
  token?: string | null;
  customHeaders?: Record<string, string>;
  /** Fresh for every HTTP attempt; generated when absent. */
  webhookUuid?: string;
  /** When the hook has a signing secret: the Standard Webhooks headers over `body`. */
  signing?: { secret: string; body: string | Buffer; timestamp?: number };
}

export interface DeliveryHeaders {
  /** What goes on the wire. */
  sent: Record<string, string>;
  /** What the delivery log stores: custom header values and the token replaced by [REDACTED]. */
  logged: Record<string, string>;
}

export const TOKEN_HEADER = "X-Gitlab-Token";

/** The hook token as sent: line breaks removed (Gitlab::Utils.remove_line_breaks). */
const tokenValue = (token: string) => token.replace(/\r?\n/g, "");

function builtInHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": `GitLab/${input.gitlabVersion}`,
    "Idempotency-Key": input.idempotencyKey,
    "X-Gitlab-Event": input.event,
    "X-Gitlab-Webhook-UUID": input.webhookUuid ?? randomUUID(),
    "X-Gitlab-Instance": input.instanceUrl.replace(/\/+$/, ""),
  };
  if (input.token) headers[TOKEN_HEADER] = tokenValue(input.token);
  headers["X-Gitlab-Event-UUID"] = input.eventUuid;
  if (input.signing) {
    const timestamp = input.signing.timestamp ?? Math.floor(Date.now() / 1000);
    const { secret, body } = input.signing;
    Object.assign(headers, signatureHeaders({ secret, id: input.idempotencyKey, timestamp, body }));
  }
  return headers;
}

/** Custom headers whose name no built-in header takes (compared case-insensitively). */
function customBelow(custom: Record<string, string>, builtIn: Record<string, string>) {
  const taken = new Set(Object.keys(builtIn).map((name) => name.toLowerCase()));
  return Object.entries(custom).filter(([name]) => !taken.has(name.toLowerCase()));
}

/** The headers for one attempt, and their log copy. */
export function buildDeliveryHeaders(input: DeliveryHeaderInput): DeliveryHeaders {
  const builtIn = builtInHeaders(input);
  const custom = customBelow(input.customHeaders ?? {}, builtIn);
  const sent = { ...Object.fromEntries(custom), ...builtIn };
  const logged = { ...Object.fromEntries(custom.map(([name]) => [name, REDACTED])), ...builtIn };
  if (logged[TOKEN_HEADER] !== undefined) logged[TOKEN_HEADER] = REDACTED;
  return { sent, logged };
}
