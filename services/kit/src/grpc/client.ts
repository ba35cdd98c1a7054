import {
  InterceptingCall,
  makeGenericClientConstructor,
  Metadata,
  type Client,
  type Interceptor,
  type ServiceDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { DEADLINE_HEADER, metadataSetter } from "./metadata";
import { CALL_ASSERTION_HEADER, type CallSigner } from "./call-assertion";
import { channelCredentials, type GrpcTls } from "./tls";
import { currentRequestId, requestContext } from "../request-context";
import {
  EVENT_POSITIONS_TRAILER,
  EVENT_USERS_TRAILER,
  formatPositions,
  mergePositions,
  parsePositions,
  parseUsers,
  READ_AFTER_HEADER,
} from "../events/positions";

type RequestOf<M> = M extends { requestSerialize: (v: infer Req) => Buffer } ? Req : never;
type ResponseOf<M> = M extends { responseDeserialize: (b: Buffer) => infer Res } ? Res : never;

/** A client whose methods return promises. */
export type PromiseClient<S extends ServiceDefinition> = {
  [K in keyof S]: (request: RequestOf<S[K]>, options?: { deadlineMs?: number }) => Promise<ResponseOf<S[K]>>;
} & { close(): void; raw: Client };

export interface ClientOptions<S extends ServiceDefinition> {
  /** host:port */
  address: string;
  /** Methods safe to send twice; only these are retried on UNAVAILABLE. */
  idempotent: (keyof S)[];
  /** Deadline for calls that do not set their own. Default 5 s. */
  deadlineMs?: number;
  /** Attempts for an idempotent call, first included. Default 4. */
  maxAttempts?: number;
  /** Signs every call as the gateway (see call-assertion.ts); services refuse unsigned calls. */
  signer?: CallSigner;
  /** Mutual TLS (see tls.ts); plaintext when absent. */
  tls?: GrpcTls | null;
}

/**
 * Every call gets a deadline, so a stuck dependency becomes DEADLINE_EXCEEDED, never a hang. It also
 * goes as an instant (DEADLINE_HEADER): grpc-timeout is relative, and a server counts it from when it
 * reads the call, which may be seconds late in a saturated process.
 */
const deadlineInterceptor =
  (ms: number): Interceptor =>
  (options, nextCall) => {
    const deadline = options.deadline ?? Date.now() + ms;
    return new InterceptingCall(nextCall({ ...options, deadline }), {
      start(metadata, listener, next) {
        metadata.set(DEADLINE_HEADER, String(deadline instanceof Date ? deadline.getTime() : deadline));
        next(metadata, listener);
      },
    });
  };

const tracer = trace.getTracer("canopy-grpc");

/**
 * Carries the active trace context (W3C headers) and the request id to the server. A call made
 * through the promise client already carries its client span's context (set before grpc-js runs the
 * interceptors, which may start the call on a later tick); one made on `raw` gets the active one here.
 */
const traceInterceptor: Interceptor = (options, nextCall) =>
  new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      if (!metadata.get("traceparent").length) propagation.inject(context.active(), metadata, metadataSetter);
      const requestId = currentRequestId();
      if (requestId) metadata.set("x-request-id", requestId);
      next(metadata, listener);
    },
  });

/**
 * Read your writes (events/positions.ts), the caller's side: each call asks the service to read after
 * the caller's recent writes and after whatever this request has written so far (a request that
 * writes to groups and then reads projects); each answer's trailer adds where its writes landed.
 * Outside a request context (a test's client, say) it does nothing.
 */
const eventPositionsInterceptor: Interceptor = (options, nextCall) =>
  new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      const store = requestContext.getStore();
      if (!store || (!store.readAfter && !store.written)) return next(metadata, listener);
      const after = formatPositions(mergePositions(new Map(store.readAfter), store.written?.positions));
      if (after) metadata.set(READ_AFTER_HEADER, after);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          const written = store.written;
          const positions = status.metadata.get(EVENT_POSITIONS_TRAILER)[0];
          if (written && positions !== undefined) {
            mergePositions(written.positions, parsePositions(positions));
            for (const user of parseUsers(status.metadata.get(EVENT_USERS_TRAILER)[0]))
              written.users.add(user);
          }
          nextStatus(status);
        },
      });
    },
  });

/**
 * Signs each call over its serialized request, so the metadata can only be sent once the message is
 * known: `start` is held back until `sendMessage`, then both go on in order. A retry replays the
 * same metadata and message, so the assertion stays valid for it.
 */
const signingInterceptor =
  (signer: CallSigner): Interceptor =>
  (options, nextCall) => {
    const { path, requestSerialize } = options.method_definition;
    let heldStart: ((assertion: string) => void) | undefined;
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        heldStart = (assertion) => {
          metadata.set(CALL_ASSERTION_HEADER, assertion);
          next(metadata, listener);
        };
      },
      sendMessage(message, next) {
        const begin = heldStart;
        heldStart = undefined;
        begin?.(signer.sign(path, requestSerialize(message)));
        next(message);
      },
    });
  };

/**
 * Retries use grpc-js's own implementation of gRFC A6 (service-config `retryPolicy`: jittered
 * exponential backoff, attempts counted against the deadline), switched on only for the methods
 * named idempotent. A hand-written retry interceptor would re-implement it less well.
 */
function retryServiceConfig(
  definition: ServiceDefinition,
  idempotent: string[],
  maxAttempts: number,
): string {
  const names = idempotent.map((key) => {
    const [service, method] = definition[key]!.path.slice(1).split("/");
    return { service, method };
  });
  return JSON.stringify({
    // An address may list several replicas (`ipv4:127.0.0.1:50051,127.0.0.1:50052`, or a DNS name
    // with one record per pod): spread calls over all of them instead of pinning the first.
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: names.length
      ? [
          {
            name: names,
            retryPolicy: {
              maxAttempts,
              initialBackoff: "0.05s",
              maxBackoff: "1s",
              backoffMultiplier: 2,
              retryableStatusCodes: ["UNAVAILABLE"],
            },
          },
        ]
      : [],
  });
}

export function createClient<S extends ServiceDefinition>(
  definition: S,
  options: ClientOptions<S>,
): PromiseClient<S> {
  const Ctor = makeGenericClientConstructor(definition, "canopy");
  const raw = new Ctor(options.address, channelCredentials(options.tls), {
    "grpc.enable_retries": 1,
    "grpc.service_config": retryServiceConfig(
      definition,
      options.idempotent as string[],
      options.maxAttempts ?? 4,
    ),
    // A replica that comes back (after a crash, in a rolling update) takes calls again within half
    // a second of listening: a refused reconnect costs next to nothing, so they are tried often
    // (grpc-js backs off from 1 s towards 2 min by default; our old cap of 2 s was the bulk of the
    // fault suite's SIGKILL recovery).
    "grpc.initial_reconnect_backoff_ms": 250,
    "grpc.max_reconnect_backoff_ms": 500,
    "grpc.keepalive_time_ms": 30_000,
    interceptors: [
      traceInterceptor,
      eventPositionsInterceptor,
      deadlineInterceptor(options.deadlineMs ?? 5_000),
      ...(options.signer ? [signingInterceptor(options.signer)] : []),
    ],
  });
  const client: Record<string, unknown> = { raw, close: () => raw.close() };
  for (const key of Object.keys(definition)) {
    const method = (raw as unknown as Record<string, (...args: unknown[]) => void>)[key]!.bind(raw);
    // `canopy.groups.v1.GroupsService/CreateGroup`: the server's span has the same name, kind SERVER.
    const path = definition[key]!.path;
    client[key] = (request: unknown, callOptions?: { deadlineMs?: number }) => {
      const span = tracer.startSpan(path, { kind: SpanKind.CLIENT, attributes: { "rpc.system": "grpc" } });
      const metadata = new Metadata();
      propagation.inject(trace.setSpan(context.active(), span), metadata, metadataSetter);
      return new Promise((resolve, reject) =>
        method(
          request,
          metadata,
          callOptions?.deadlineMs ? { deadline: Date.now() + callOptions.deadlineMs } : {},
          (err: ServiceError | null, response: unknown) => {
            if (err) {
              span.setAttribute("rpc.grpc.status_code", err.code);
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
            span.end();
            return err ? reject(err) : resolve(response);
          },
        ),
      );
    };
  }
  return client as PromiseClient<S>;
}
