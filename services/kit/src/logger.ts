import pino, { type Logger } from "pino";
import { trace } from "@opentelemetry/api";
import { redactDeep, redactText } from "./redact";
import { currentRequestId } from "./request-context";

export type { Logger };

/**
 * JSON logs on stdout (or `destination`, e.g. an in-memory stream in tests). Every record is redacted
 * (see redact.ts) and carries the active trace id, so a log line can be joined to its trace.
 */
export function createLogger(
  service: string,
  level = process.env.CANOPY_LOG_LEVEL ?? "info",
  destination?: pino.DestinationStream,
): Logger {
  const logger = pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "msg",
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
      // redactDeep has already turned errors into { type, message, stack }; pino's own serializer would
      // read that plain object's constructor and log every error as type "Object".
      serializers: { err: (err: unknown) => err },
      formatters: {
        level: (label) => ({ level: label }),
        log: (record) => {
          const spanContext = trace.getActiveSpan()?.spanContext();
          const redacted = redactDeep(record) as Record<string, unknown>;
          return spanContext ? { ...redacted, trace_id: spanContext.traceId } : redacted;
        },
      },
      hooks: {
        logMethod(args, method) {
          const redacted: unknown[] = args.map((arg) => (typeof arg === "string" ? redactText(arg) : arg));
          // Given no message, pino takes the error's own (`log.error(err)`, `log.warn({ err })`), unredacted.
          const first = args[0] as unknown;
          const err = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
          if (redacted.length === 1 && err instanceof Error) redacted.push(redactText(err.message));
          method.apply(this, redacted as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  // A child's bindings are written as given, past every formatter: redact them on the way in. Children
  // inherit this method, so grandchildren are covered too.
  const child = logger.child;
  logger.child = function (this: Logger, bindings, options) {
    return child.call(this, redactDeep(bindings) as typeof bindings, options);
  } as typeof child;
  return logger;
}
