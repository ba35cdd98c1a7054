import type { settings } from "@canopy/protos";

/**
 * What the hooks service needs from the outbound runtime (the SSRF guard, the sender, the log
 * entry's redaction, the retry policy) and from the payload builders. The service codes against
 * these; `outbound/index.ts` binds them to the implementations.
 */

export type ApplicationSettings = settings.ApplicationSettings;

/** One HTTP delivery attempt of a hook. */
export interface OutboundRequest {
  /** The interpolated URL (userinfo becomes Basic auth). */
  url: string;
  /** The stored template, for the log. */
  urlTemplate: string;
  urlVariables: Record<string, string>;
  /** GitLab's trigger scope ("member_hooks"); X-Gitlab-Event derives from it. */
  trigger: string;
  payload: unknown;
  customWebhookTemplate: string | null;
  token: string | null;
  customHeaders: Record<string, string>;
  signingSecret: string;
  /** The same on every attempt and resend of a delivery (also the Standard Webhooks webhook-id). */
  idempotencyKey: string;
  eventUuid: string;
  verifyTls: boolean;
}

export interface OutboundResult {
  /** The receiver's HTTP status; null when no answer was had (a GitLab "internal error"). */
  status: number | null;
  /** Why no answer was had ("URL is blocked: ...", "Net::ReadTimeout", ...). */
  internalError?: string;
  /** The request's headers as sent. */
  requestHeaders: Record<string, string>;
  /** The body as sent, parsed back (the template's output when there is one). */
  requestData: unknown;
  responseHeaders: Record<string, string>;
  responseBody: string;
  durationSeconds: number;
  /** The receiver's Retry-After, seconds. */
  retryAfterSeconds?: number;
}

/** A delivery log row's exposed fields (GitLab's WebHookLog, redacted and truncated). */
export interface LogEntry {
  url: string;
  requestHeaders: Record<string, string>;
  requestData: unknown;
  responseHeaders: Record<string, string>;
  responseBody: string;
  responseStatus: string;
  executionDuration: number;
  internalErrorMessage: string | null;
}

export interface Outbound {
  /** The save-time URL check: the blocker's reason ("Requests to loopback addresses are not allowed"), or undefined. */
  blockedAtSave(url: string, settings: ApplicationSettings): Promise<string | undefined>;
  send(request: OutboundRequest, settings: ApplicationSettings, timeoutMs: number): Promise<OutboundResult>;
  logEntry(request: OutboundRequest, result: OutboundResult): LogEntry;
  /** Whether a failed attempt is worth another (network error, timeout, 429, 5xx). */
  retryable(result: OutboundResult): boolean;
  /** Delay before attempt `attempt + 1` (attempt counts from 1). */
  retryDelayMs(attempt: number, baseSeconds: number, result: OutboundResult): number;
}

/** A group as payloads name it. */
export interface PayloadGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  created_at: Date;
  updated_at: Date;
}

export interface PayloadUser {
  id: number;
  username: string;
  name: string;
  email: string;
}

export interface PayloadProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  namespace_id: number;
  visibility_level: number;
  created_at: Date;
  updated_at: Date;
  owners: { name: string; email: string }[];
}

export interface Payloads {
  subgroup(
    event: "subgroup_create" | "subgroup_destroy",
    subgroup: PayloadGroup,
    parent: PayloadGroup,
  ): Record<string, unknown>;
  member(
    event: "user_add_to_group" | "user_update_for_group" | "user_remove_from_group",
    m: {
      group: PayloadGroup;
      user: PayloadUser;
      access_level: number;
      expires_at: string | null;
      created_at: Date;
      updated_at: Date;
      group_plan: string | null;
    },
  ): Record<string, unknown>;
  project(event: "project_create" | "project_destroy", project: PayloadProject): Record<string, unknown>;
  /** GitLab's sample payload for a test of `trigger` (a flag name), or a reason it cannot be built. */
  test(
    trigger: string,
    sample: { group: PayloadGroup; project: PayloadProject; user: PayloadUser },
  ): Record<string, unknown> | { unavailable: string };
}
