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
