/**
 * The OpenTelemetry API as services and the gateway use it, through the kit: they depend on the kit
 * alone, and the API (not the SDK) is all code may touch (telemetry.ts starts the SDK when asked).
 */
export { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
export type { Context as TraceContext, Span } from "@opentelemetry/api";
