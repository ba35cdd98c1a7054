import type { Metadata } from "@grpc/grpc-js";
import type { TextMapGetter, TextMapSetter } from "@opentelemetry/api";

/** Lets OpenTelemetry propagators read and write W3C trace context in gRPC metadata. */
export const metadataGetter: TextMapGetter<Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get: (carrier, key) => {
    const values = carrier.get(key);
    return values.length ? values.map(String) : undefined;
  },
};

export const metadataSetter: TextMapSetter<Metadata> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

/**
 * The caller's deadline as an instant (epoch ms), beside grpc-timeout. A server reads grpc-timeout
 * as "from now", so a call that waited unread in a busy process would get its whole timeout again
 * and could commit after the caller had given up; the instant cannot stretch. It assumes the hosts'
 * clocks agree (NTP): one that runs ahead ends its calls that much early.
 */
export const DEADLINE_HEADER = "canopy-deadline";
