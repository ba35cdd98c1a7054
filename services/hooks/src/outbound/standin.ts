import { createHmac, randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { ApplicationSettings, Outbound, OutboundRequest, OutboundResult, Payloads } from "./ports";

/**
 * A small stand-in for the outbound runtime and payload builders (built apart, under src/delivery/
 * and src/payloads/), so the service runs and its tests pass before they are merged. It sends
 * GitLab's headers and the Standard Webhooks signature, refuses local addresses unless the settings
 * allow them, and follows no redirect.
 */

const USER_AGENT = "GitLab/17.5.0";
const RANGES: [string, number, string][] = [
  ["127.0.0.0", 8, "Requests to loopback addresses are not allowed"],
  ["0.0.0.0", 8, "Requests to localhost are not allowed"],
  ["10.0.0.0", 8, "Requests to the local network are not allowed"],
  ["172.16.0.0", 12, "Requests to the local network are not allowed"],
  ["192.168.0.0", 16, "Requests to the local network are not allowed"],
  ["169.254.0.0", 16, "Requests to the link local network are not allowed"],
  ["100.64.0.0", 10, "Requests to the shared address space are not allowed"],
];

function blockedAddress(address: string): string | undefined {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  if (family === "ipv6") {
    if (address === "::1") return "Requests to loopback addresses are not allowed";
    if (address === "::") return "Requests to localhost are not allowed";
    if (/^f[cd]/i.test(address)) return "Requests to the local network are not allowed";
    if (/^fe[89ab]/i.test(address)) return "Requests to the link local network are not allowed";
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? blockedAddress(mapped[1]!) : undefined;
  }
  if (address === "255.255.255.255") return "Requests to the limited broadcast address are not allowed";
  for (const [net, prefix, reason] of RANGES) {
    const list = new BlockList();
    list.addSubnet(net, prefix, "ipv4");
    if (list.check(address, "ipv4")) return reason;
  }
  return undefined;
}

async function blocked(url: string, s: ApplicationSettings): Promise<string | undefined> {
  if (/[\r\n]/.test(url)) return "URI is invalid";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "URI is invalid";
  }
  if (!["http:", "https:"].includes(parsed.protocol)) return "Only allowed schemes are http, https";
  if (s.allowLocalRequestsFromWebHooksAndServices) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
  for (const a of addresses) {
    const reason = blockedAddress(a);
    if (reason) return reason;
  }
  return undefined;
}

const eventHeader = (trigger: string) =>
  trigger
    .replace(/_hooks$/, "_hook")
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");

export const standinOutbound = (instanceUrl: string): Outbound => ({
  blockedAtSave: (url, s) => blocked(url, s).then((r) => (r ? `is blocked: ${r}` : undefined)),
  async send(request: OutboundRequest, s: ApplicationSettings, timeoutMs: number): Promise<OutboundResult> {
    const body = JSON.stringify(request.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = Buffer.from(request.signingSecret.replace(/^whsec_/, ""), "base64");
    const signature = createHmac("sha256", secret)
      .update(`${request.idempotencyKey}.${timestamp}.${body}`)
      .digest("base64");
    const headers: Record<string, string> = {
      ...request.customHeaders,
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      "Idempotency-Key": request.idempotencyKey,
      "X-Gitlab-Event": eventHeader(request.trigger),
      "X-Gitlab-Webhook-UUID": randomUUID(),
      "X-Gitlab-Instance": instanceUrl,
      "X-Gitlab-Event-UUID": request.eventUuid,
      "webhook-id": request.idempotencyKey,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${signature}`,
    };
    if (request.token) headers["X-Gitlab-Token"] = request.token.replace(/\n/g, "");
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const failed = (internalError: string): OutboundResult => ({
      status: null,
      internalError,
      requestHeaders: headers,
      requestData: request.payload,
      responseHeaders: {},
      responseBody: "",
      durationSeconds: seconds(),
    });
    const reason = await blocked(request.url, s);
    if (reason) return failed(`URL is blocked: ${reason}`);
    try {
      const res = await fetch(request.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      const retryAfter = Number(res.headers.get("retry-after"));
      return {
        status: res.status,
        requestHeaders: headers,
        requestData: request.payload,
        responseHeaders: Object.fromEntries(res.headers),
        responseBody: text,
        durationSeconds: seconds(),
        retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      };
    } catch (err) {
      return failed((err as Error).message);
    }
  },
  logEntry: (request, result) => ({
    url: request.urlTemplate,
    requestHeaders: {
      ...result.requestHeaders,
      ...(result.requestHeaders["X-Gitlab-Token"] ? { "X-Gitlab-Token": "[REDACTED]" } : {}),
      ...Object.fromEntries(Object.keys(request.customHeaders).map((k) => [k, "[REDACTED]"])),
    },
    requestData: JSON.parse(
      JSON.stringify(result.requestData).replace(/"[^"@\s]+@[^"@\s]+\.[^"@\s]+"/g, '"[REDACTED]"'),
    ),
    responseHeaders: result.responseHeaders,
    responseBody: result.responseBody.slice(0, 8192),
    responseStatus: result.status === null ? "internal error" : String(result.status),
    executionDuration: result.durationSeconds,
    internalErrorMessage: result.internalError ?? null,
  }),
  retryable: (r) => r.status === null || r.status === 429 || r.status >= 500,
  retryDelayMs: (attempt, baseSeconds, result) => {
    if (result.retryAfterSeconds !== undefined) return result.retryAfterSeconds * 1000;
    const exp = baseSeconds * 1000 * 2 ** (attempt - 1);
    return exp / 2 + Math.random() * (exp / 2);
  },
});

const xmlschema = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
const ACCESS: Record<number, string> = {
  5: "Minimal Access",
  10: "Guest",
  15: "Planner",
  20: "Reporter",
  30: "Developer",
  40: "Maintainer",
  50: "Owner",
};
const VISIBILITY: Record<number, string> = { 0: "private", 10: "internal", 20: "public" };

export const standinPayloads: Payloads = {
  subgroup: (event, g, parent) => ({
    created_at: xmlschema(g.created_at),
    updated_at: xmlschema(g.updated_at),
    event_name: event,
    name: g.name,
    path: g.path,
    full_path: g.full_path,
    group_id: g.id,
    parent_group_id: parent.id,
    parent_name: parent.name,
    parent_path: parent.path,
    parent_full_path: parent.full_path,
  }),
  member: (event, m) => ({
    created_at: xmlschema(m.created_at),
    updated_at: xmlschema(m.updated_at),
    group_name: m.group.name,
    group_path: m.group.path,
    group_id: m.group.id,
    user_username: m.user.username,
    user_name: m.user.name,
    user_email: m.user.email,
    user_id: m.user.id,
    group_access: ACCESS[m.access_level] ?? String(m.access_level),
    group_plan: m.group_plan,
    expires_at: m.expires_at ? `${m.expires_at}T00:00:00Z` : null,
    event_name: event,
  }),
  project: (event, p) => ({
    event_name: event,
    created_at: xmlschema(p.created_at),
    updated_at: xmlschema(p.updated_at),
    name: p.name,
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    project_id: p.id,
    project_namespace_id: p.namespace_id,
    owners: p.owners,
    owner_name: p.owners[0]?.name ?? null,
    owner_email: p.owners[0]?.email ?? null,
    project_visibility: VISIBILITY[p.visibility_level] ?? "private",
  }),
  test: (trigger, { project, user }) => ({
    object_kind: trigger.replace(/_events$/, ""),
    event_name: trigger.replace(/_events$/, ""),
    user_id: user.id,
    user_username: user.username,
    project_id: project.id,
    project: { id: project.id, name: project.name, path_with_namespace: project.path_with_namespace },
  }),
};
