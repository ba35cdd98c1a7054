/**
 * What one delivery-log row stores (app/models/hooks/web_hook_log.rb, WebHookService#log_execution,
 * WebHooks::LogExecutionService). Secrets are removed *before* the row is written (GitLab stores the
 * token and masks it when reading; Canopy keeps no secret at rest):
 * - the hook token and every custom header value read `[REDACTED]` (headers.ts `logged`);
 * - any request-data value that is an email address reads `[REDACTED]`;
 * - the URL is the hook's template with `user:password@` masked; response header values that
 *   contain a URL-variable value show `{name}` instead.
 */
import { createHash } from "node:crypto";
import { REDACTED } from "@canopy/kit";
import type { SendOutcome } from "./send";
import { truncateBytes } from "./truncate";
import { maskUrlCredentials, maskVariableValues } from "./url-template";

/** WebHookService::RESPONSE_BODY_SIZE_LIMIT. */
export const LOG_RESPONSE_BODY_LIMIT_BYTES = 8 * 1024;
/** WebHookService::RESPONSE_HEADERS_COUNT_LIMIT and RESPONSE_HEADERS_SIZE_LIMIT. */
export const LOG_RESPONSE_HEADERS_COUNT_LIMIT = 50;
export const LOG_RESPONSE_HEADER_VALUE_LIMIT_BYTES = 1024;
/** `response_status` of a delivery that got no HTTP answer. */
export const INTERNAL_ERROR_STATUS = "internal error";
/** The request data GitLab keeps when a delivery's data is too large to log. */
export const OVERSIZE_REQUEST_DATA = { oversize: true } as const;

export interface DeliveryLogEntry {
  trigger: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestData: unknown;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** "200", "404", ... or "internal error". */
  responseStatus: string;
  /** Seconds. */
  executionDuration: number;
  /** Stored, never shown by the API. */
  internalErrorMessage: string | null;
  /** SHA-256 of the interpolated URL: resend refuses when the hook's URL changed since. */
  urlHash: string;
}

export interface LogEntryInput {
  /** The trigger scope, e.g. "member_hooks". */
  trigger: string;
  /** The hook's URL as stored, placeholders included. */
  urlTemplate: string;
  /** The URL the delivery went to. */
  interpolatedUrl: string;
  urlVariables?: Record<string, string>;
  /** `buildDeliveryHeaders(...).logged`. */
  requestHeaders: Record<string, string>;
  /** The payload sent; `{}` after a custom-template error; OVERSIZE_REQUEST_DATA when too large. */
  requestData: unknown;
  outcome: SendOutcome;
}

/** `content-type` as Net::HTTP's each_capitalized prints it: `Content-Type`. */
const capitalizeHeaderName = (name: string) =>
  name
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join("-");

// URI::MailTo::EMAIL_REGEXP: the whole value must be an address.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** A copy of `data` with every leaf value that reads as an email address replaced by [REDACTED]. */
export function redactEmails(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(redactEmails);
  if (data !== null && typeof data === "object") {
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, redactEmails(value)]));
  }
  if (data === null || data === undefined) return data;
  return EMAIL.test(String(data)) ? REDACTED : data;
}

function logResponseHeaders(headers: Record<string, string>, variables: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(headers)
      .slice(0, LOG_RESPONSE_HEADERS_COUNT_LIMIT)
      .map(([name, value]) => [
        capitalizeHeaderName(name),
        maskVariableValues(truncateBytes(value, LOG_RESPONSE_HEADER_VALUE_LIMIT_BYTES), variables),
      ]),
  );
}

/** SHA-256 (hex) of an interpolated URL, as the log row keeps it. */
export const urlHash = (interpolatedUrl: string) =>
  createHash("sha256").update(interpolatedUrl).digest("hex");

/** 2xx and 3xx count as success (auto-disabling, events filters); everything else is a failure. */
export const isSuccessfulStatus = (status: string) => /^[23]\d\d$/.test(status);

/** The row for one attempted delivery. */
export function buildLogEntry(input: LogEntryInput): DeliveryLogEntry {
  const { outcome } = input;
  const variables = input.urlVariables ?? {};
  const answered = outcome.kind === "response";
  return {
    trigger: input.trigger,
    url: maskUrlCredentials(input.urlTemplate),
    requestHeaders: input.requestHeaders,
    requestData: redactEmails(input.requestData),
    responseHeaders: answered ? logResponseHeaders(outcome.headers, variables) : {},
    responseBody: answered ? truncateBytes(outcome.body, LOG_RESPONSE_BODY_LIMIT_BYTES) : "",
    responseStatus: answered ? String(outcome.status) : INTERNAL_ERROR_STATUS,
    executionDuration: outcome.durationMs / 1000,
    internalErrorMessage: answered ? null : outcome.message,
    urlHash: urlHash(input.interpolatedUrl),
  };
}
