import {
  Metadata,
  Server,
  status,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from "@grpc/grpc-js";
import type { HealthImplementation } from "grpc-health-check";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "pino";
import { CanopyError, toServiceError } from "../errors";
import { observeGrpcCall } from "../metrics";
import { DEADLINE_HEADER, metadataGetter } from "./metadata";
import { requestContext, type RequestContext } from "../request-context";
import { CALL_ASSERTION_HEADER, requestDigest, type CallVerifier } from "./call-assertion";
import type { ConsumerProgress } from "../events/consumer-progress";
import {
  emptyWritten,
  EVENT_POSITIONS_TRAILER,
  EVENT_USERS_TRAILER,
  formatPositions,
  formatUsers,
  parsePositions,
  READ_AFTER_HEADER,
  type WrittenEvents,
} from "../events/positions";
import { serverCredentials, type GrpcTls } from "./tls";

type RequestOf<M> = M extends { requestDeserialize: (b: Buffer) => infer Req } ? Req : never;
type ResponseOf<M> = M extends { responseSerialize: (v: infer Res) => Buffer } ? Res : never;

/** A service implemented as plain async functions: `(request, call) => Promise<response>`. */
export type AsyncService<S extends ServiceDefinition> = {
  [K in keyof S]: (
    request: RequestOf<S[K]>,
    call: ServerUnaryCall<RequestOf<S[K]>, ResponseOf<S[K]>>,
  ) => Promise<ResponseOf<S[K]>>;
};

const tracer = trace.getTracer("canopy-grpc");

/** SHA-256 of the bytes each request was decoded from, for checking the gateway's assertion. */
type RequestDigests = WeakMap<object, string>;

/**
 * The definition with each request decoder also recording the digest of the bytes it decoded:
 * grpc-js hands handlers only the decoded message, and re-encoding it might not give the same bytes.
 */
function recordingDigests<S extends ServiceDefinition>(definition: S, digests: RequestDigests): S {
  const methods = Object.entries(definition).map(([key, method]) => [
    key,
    {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const message = method.requestDeserialize(bytes) as object;
        digests.set(message, requestDigest(bytes));
        return message;
      },
    },
  ]);
  return Object.fromEntries(methods) as S;
}

/** The longest a call waits for the caller's own writes to reach this service's copies. */
export const READ_AFTER_MAX_WAIT_MS = 3_000;
/** What a wait leaves of the caller's deadline, so a slow copy answers from what it has instead of failing. */
const DEADLINE_RESERVE_MS = 1_000;

/** The trailer that tells the gateway where this call's writes are on the stream (events/positions.ts). */
function writtenTrailer(written: WrittenEvents, into = new Metadata()): Metadata | undefined {
  const positions = formatPositions(written.positions);
  if (!positions) return undefined;
  into.set(EVENT_POSITIONS_TRAILER, positions);
  const users = formatUsers(written.users);
  if (users) into.set(EVENT_USERS_TRAILER, users);
  return into;
}

/**
 * A call that names the caller's recent writes (`canopy-read-after`) waits, bounded, until this
 * service's consumers have applied them; without a header, or when they have, it goes straight on.
 */
async function readAfterWrites(
  call: ServerUnaryCall<unknown, unknown>,
  progress: ConsumerProgress | undefined,
): Promise<void> {
  if (!progress) return;
  const header = call.metadata.get(READ_AFTER_HEADER)[0];
  if (header === undefined) return;
  const positions = parsePositions(header);
  if (!positions.size) return;
  const left = deadlineOf(call) - Date.now();
  await progress.waitFor(positions, Math.min(READ_AFTER_MAX_WAIT_MS, left - DEADLINE_RESERVE_MS));
}

/** A sent deadline further than this from now is no deadline of ours (a wrong clock, garbage). */
const SENT_DEADLINE_SANITY_MS = 10 * 60_000;

/**
 * The caller's deadline in epoch ms (Infinity without one): the earlier of grpc-timeout counted from
 * when this process read the call and the instant the caller sent (DEADLINE_HEADER).
 */
export function deadlineOf(
  call: Pick<ServerUnaryCall<unknown, unknown>, "getDeadline" | "metadata">,
): number {
  const deadline = call.getDeadline();
  const relative = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  const sent = Number(call.metadata.get(DEADLINE_HEADER)[0]);
  if (!Number.isFinite(sent) || Math.abs(sent - Date.now()) > SENT_DEADLINE_SANITY_MS) return relative;
  return Math.min(relative, sent);
}

const assertionIn = (metadata: Metadata) => {
  const value = metadata.get(CALL_ASSERTION_HEADER)[0];
  return typeof value === "string" ? value : undefined;
};

/**
 * Adapts async handlers to grpc-js: refuses a call the gateway did not sign (UNAUTHENTICATED, before
 * the handler sees it), continues the caller's trace, times the call, and turns a
 * thrown CanopyError into a status with its detail trailer. Unexpected errors are logged with their
 * internal message and answered as INTERNAL without it.
 */
function adapt<S extends ServiceDefinition>(
  definition: S,
  impl: AsyncService<S>,
  log: Logger,
  verifier: CallVerifier,
  digests: RequestDigests,
  progress?: ConsumerProgress,
) {
  const handlers: UntypedServiceImplementation = {};
  for (const key of Object.keys(definition) as (keyof S & string)[]) {
    const method = definition[key]!.path;
    const handler = impl[key];
    handlers[key] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const fault = verifier.check(assertionIn(call.metadata), method, digests.get(call.request as object));
      if (fault) {
        observeGrpcCall(method, "UNAUTHENTICATED", 0);
        log.warn({ method, fault, peer: call.getPeer() }, "call refused: not signed by the gateway");
        return callback({ code: status.UNAUTHENTICATED, details: "call not signed by the gateway" });
      }
      const parent = propagation.extract(context.active(), call.metadata, metadataGetter);
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { "rpc.system": "grpc" } },
        parent,
      );
      const started = process.hrtime.bigint();
      const stopTimer = (code: string) =>
        observeGrpcCall(method, code, Number(process.hrtime.bigint() - started) / 1e9);
      const requestId = String(call.metadata.get("x-request-id")[0] ?? "");
      const written = emptyWritten();
      const deadline = deadlineOf(call);
      const publishBy = deadline - DEADLINE_RESERVE_MS;
      const store: RequestContext = { requestId, written, publishBy };
      if (Number.isFinite(deadline)) store.commitBy = deadline;
      requestContext
        .run(store, () =>
          context.with(trace.setSpan(parent, span), async () => {
            await readAfterWrites(call, progress);
            return handler(call.request as never, call as never);
          }),
        )
        .finally(() => {
          // Work the handler left running (an after-answer task) is no longer held to the deadline.
          store.commitBy = undefined;
        })
        .then(
          (response) => {
            stopTimer("OK");
            span.end();
            callback(null, response, writtenTrailer(written));
          },
          (err: unknown) => {
            const e = toServiceError(err);
            // A call can fail after a transaction of it committed: its events are written all the same.
            if (e.metadata) writtenTrailer(written, e.metadata);
            const code = status[e.code ?? status.INTERNAL];
            stopTimer(code);
            span.setAttribute("rpc.grpc.status_code", e.code ?? status.INTERNAL);
            if (!(err instanceof CanopyError) || e.code === status.INTERNAL) {
              log.error({ err, method }, "rpc failed");
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
            span.end();
            callback(e);
          },
        );
    };
  }
  return handlers;
}

export interface GrpcServer {
  readonly port: number;
  /** Stops accepting calls, lets in-flight calls finish (up to `graceMs`), then closes. */
  shutdown(graceMs?: number): Promise<void>;
  health: HealthImplementation;
}

/** One gRPC service and its implementation; `serve` keeps the two types tied together. */
export interface ServiceBinding {
  add(server: Server, log: Logger, verifier: CallVerifier, progress?: ConsumerProgress): void;
}

export const serve = <S extends ServiceDefinition>(
  definition: S,
  implementation: AsyncService<S>,
): ServiceBinding => ({
  add: (server, log, verifier, progress) => {
    const digests: RequestDigests = new WeakMap();
    server.addService(
      recordingDigests(definition, digests),
      adapt(definition, implementation, log, verifier, digests, progress),
    );
  },
});

/**
 * Starts a gRPC server for `services` plus `grpc.health.v1` on `port` (0 picks a free one), bound to
 * loopback unless `host` says otherwise. Every call must carry the gateway's assertion, checked by
 * `verifier` (there is no way to start a server that skips it); health checks stay open for probes.
 * With `tls`, only clients with a certificate from its CA may connect at all.
 */
export async function startGrpcServer(options: {
  services: ServiceBinding[];
  port: number;
  host?: string;
  verifier: CallVerifier;
  tls?: GrpcTls | null;
  log: Logger;
  /** The service's consumers: calls naming the caller's recent writes wait for them (events/positions.ts). */
  progress?: ConsumerProgress;
}): Promise<GrpcServer> {
  const server = new Server({ "grpc.max_receive_message_length": 4 * 1024 * 1024 });
  for (const binding of options.services) {
    binding.add(server, options.log, options.verifier, options.progress);
  }
  // Loaded here, not at the top: it brings @grpc/proto-loader and protobufjs (~3 MB resident), and
  // the gateway, which loads this module through the kit's index, never serves gRPC.
  const { HealthImplementation } = await import("grpc-health-check");
  const health = new HealthImplementation({ "": "SERVING" });
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host ?? "127.0.0.1"}:${options.port}`,
      serverCredentials(options.tls),
      (err, p) => (err ? reject(err) : resolve(p)),
    ),
  );
  return {
    port,
    health,
    shutdown: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        health.setStatus("", "NOT_SERVING");
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
