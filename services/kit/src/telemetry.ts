import { propagation } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

/**
 * Code uses `@opentelemetry/api` only. The W3C propagator is always on so trace context crosses
 * gRPC and NATS even without an SDK; the SDK and its OTLP exporter start only when the standard
 * OTEL_* variables ask for them (it then reads them itself).
 */
export async function startTelemetry(serviceName: string): Promise<() => Promise<void>> {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const wanted =
    process.env.OTEL_SDK_DISABLED !== "true" &&
    Boolean(
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT ||
      process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
      process.env.OTEL_TRACES_EXPORTER,
    );
  if (!wanted) return async () => undefined;
  process.env.OTEL_SERVICE_NAME ??= `canopy-${serviceName}`;
  // Loaded lazily: the SDK is heavy and most local runs do not export traces.
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK();
  sdk.start();
  return () => sdk.shutdown();
}
