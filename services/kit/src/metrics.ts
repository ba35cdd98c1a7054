import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/**
 * One Prometheus registry per process, with the default process metrics and Canopy's own. Every label
 * takes a bounded set of values (route templates, gRPC method paths, status classes, consumer and
 * service names, hook triggers): never a raw path, an id or anything a caller chooses.
 */
export const registry = new Registry();
/** For a service's own metrics on `registry` (the hooks service's delivery counters). */
export { Counter, Gauge, Histogram } from "prom-client";
collectDefaultMetrics({ register: registry });

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export const metrics = {
  grpcServerSeconds: new Histogram({
    name: "canopy_grpc_server_handling_seconds",
    help: "Time to handle a gRPC call, by method and status code",
    labelNames: ["method", "code"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  grpcServerRequests: new Counter({
    name: "canopy_grpc_server_requests_total",
    help: "gRPC calls handled, by method and status code",
    labelNames: ["method", "code"] as const,
    registers: [registry],
  }),
  grpcServerErrors: new Counter({
    name: "canopy_grpc_server_errors_total",
    help: "gRPC calls that failed on the server's side (INTERNAL, UNAVAILABLE, UNKNOWN, ...), by method and code",
    labelNames: ["method", "code"] as const,
    registers: [registry],
  }),
  httpServerSeconds: new Histogram({
    name: "canopy_http_server_request_seconds",
    help: "Time to answer an HTTP request, by route template, method and status class",
    labelNames: ["method", "route", "status_class"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  httpServerRequests: new Counter({
    name: "canopy_http_server_requests_total",
    help: "HTTP requests answered, by route template, method and status class",
    labelNames: ["method", "route", "status_class"] as const,
    registers: [registry],
  }),
  httpServerErrors: new Counter({
    name: "canopy_http_server_errors_total",
    help: "HTTP requests answered with a 5xx, by route template, method and status class",
    labelNames: ["method", "route", "status_class"] as const,
    registers: [registry],
  }),
  readAfterWaitSeconds: new Histogram({
    name: "canopy_read_after_write_wait_seconds",
    help: "Time a call waited for this service's consumers to apply the caller's own writes, by outcome",
    labelNames: ["outcome"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  }),
  deadLetters: new Counter({
    name: "canopy_events_dead_lettered_total",
    help: "Events a durable consumer gave up on and parked on its dead-letter subject, by consumer",
    labelNames: ["consumer"] as const,
    registers: [registry],
  }),
};

/** Codes that say the server failed, not the caller (a 5xx, in HTTP terms). */
const SERVER_FAULT_CODES = new Set([
  "UNKNOWN",
  "INTERNAL",
  "UNAVAILABLE",
  "DEADLINE_EXCEEDED",
  "DATA_LOSS",
  "UNIMPLEMENTED",
]);

/** One handled gRPC call in the RED metrics. */
export function observeGrpcCall(method: string, code: string, seconds: number): void {
  metrics.grpcServerSeconds.observe({ method, code }, seconds);
  metrics.grpcServerRequests.inc({ method, code });
  if (SERVER_FAULT_CODES.has(code)) metrics.grpcServerErrors.inc({ method, code });
}

/** `503` -> `5xx`: the class keeps the label set small; the exact code is in the logs. */
export const statusClassOf = (status: number): string =>
  status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "other";

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** One answered HTTP request in the RED metrics; `route` must be a template, never a raw path. */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  // A client may send any method token: only the standard ones become label values.
  const labels = {
    method: HTTP_METHODS.has(method) ? method : "other",
    route,
    status_class: statusClassOf(status),
  };
  metrics.httpServerSeconds.observe(labels, seconds);
  metrics.httpServerRequests.inc(labels);
  if (status >= 500) metrics.httpServerErrors.inc(labels);
}
