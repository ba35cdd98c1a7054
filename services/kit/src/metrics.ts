import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** One Prometheus registry per process, with the default process metrics and Canopy's own. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const metrics = {
  grpcServerSeconds: new Histogram({
    name: "canopy_grpc_server_handling_seconds",
    help: "Time to handle a gRPC call, by method and status code",
    labelNames: ["method", "code"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  }),
  httpServerSeconds: new Histogram({
    name: "canopy_http_server_request_seconds",
    help: "Time to answer an HTTP request, by route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  }),
  readAfterWaitSeconds: new Histogram({
    name: "canopy_read_after_write_wait_seconds",
    help: "Time a call waited for this service's consumers to apply the caller's own writes, by outcome",
    labelNames: ["outcome"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  }),
};
