/** Every field optional, all the way down (as ts-proto's `fromPartial` accepts). */
export type DeepPartial<T> = T extends Date
  ? T
  : T extends (infer U)[]
    ? DeepPartial<U>[]
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

type Methods<C> = { [K in keyof C as C[K] extends (request: never) => Promise<unknown> ? K : never]: C[K] };
type RequestOf<F> = F extends (request: infer R, ...rest: never[]) => unknown ? R : never;

/** For each method, the generated request message (whose `fromPartial` fills proto3 defaults). */
export type RequestTypes<C> = {
  [K in keyof Methods<C>]: {
    fromPartial(object: DeepPartial<RequestOf<Methods<C>[K]>>): RequestOf<Methods<C>[K]>;
  };
};

/** A client whose calls take partial requests: `rpc.listUsers({ actor, search: "x" })`. */
export type FilledClient<C> = {
  [K in keyof RequestTypes<C>]: (
    request: DeepPartial<RequestOf<Methods<C>[K]>>,
  ) => Methods<C>[K] extends (...args: never[]) => infer R ? R : never;
};

/**
 * Wraps a promise client so each request is completed with proto3 defaults first, as any client
 * generated from the .proto would send it; tests then write only the fields they mean.
 */
export function filledClient<C extends object>(client: C, requests: RequestTypes<C>): FilledClient<C> {
  const entries = Object.entries(requests as Record<string, { fromPartial(o: unknown): unknown }>).map(
    ([method, type]) => {
      const call = (client as Record<string, (request: unknown) => Promise<unknown>>)[method]!;
      return [method, (request: unknown) => call.call(client, type.fromPartial(request))];
    },
  );
  return Object.fromEntries(entries) as FilledClient<C>;
}
