import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { common } from "@canopy/protos";
import type { FieldErrors } from "./gitlab/model-errors";

/** Trailer that carries a `canopy.common.v1.ErrorDetail` beside the gRPC status. */
export const ERROR_DETAIL_KEY = "canopy-error-detail-bin";

/**
 * The one error type services raise. `code` is the gRPC status; `detail` is what a user may see;
 * `internal` is for logs only and never leaves the process.
 */
export class CanopyError extends Error {
  override readonly name = "CanopyError";
  constructor(
    readonly code: status,
    readonly detail: common.ErrorDetail,
    readonly internal?: string,
  ) {
    super(detail.publicMessage || internal || status[code]);
  }
}

const detail = (d: Partial<common.ErrorDetail>): common.ErrorDetail => ({
  resource: "",
  publicMessage: "",
  fieldErrors: {},
  httpStatus: 0,
  errorBody: false,
  ...d,
});

/** 404 "<Resource> Not Found"; also used for what the caller may not see. */
export const notFound = (resource = "") => new CanopyError(status.NOT_FOUND, detail({ resource }));
/** 403, optionally with a reason ("403 Forbidden - <reason>"). */
export const forbidden = (reason = "") =>
  new CanopyError(status.PERMISSION_DENIED, detail({ publicMessage: reason }));
export const unauthenticated = () => new CanopyError(status.UNAUTHENTICATED, detail({}));
/** Model validation errors keyed by attribute: 400 {"message":{"attr":["msg"]}}. */
export const invalid = (fieldErrors: FieldErrors) =>
  new CanopyError(
    status.INVALID_ARGUMENT,
    detail({
      fieldErrors: Object.fromEntries(Object.entries(fieldErrors).map(([k, v]) => [k, { messages: v }])),
    }),
  );
/** A parameter-level problem: 400 {"error":"<message>"}. */
export const badParameter = (message: string) =>
  new CanopyError(status.INVALID_ARGUMENT, detail({ publicMessage: message }));
/** 400 {"message":"400 Bad request - <reason>"}. */
export const badRequest = (reason: string) =>
  new CanopyError(status.FAILED_PRECONDITION, detail({ publicMessage: reason }));
/** 409 {"message":"<message>"}. */
export const conflict = (message: string) =>
  new CanopyError(status.ALREADY_EXISTS, detail({ publicMessage: message }));

/**
 * An answer GitLab gives with free text: exactly `httpStatus` and {"message": message}. `code` is
 * the gRPC status it travels as (what a non-HTTP caller sees).
 */
export const apiError = (httpStatus: number, message: string, code: status = status.FAILED_PRECONDITION) =>
  new CanopyError(code, detail({ publicMessage: message, httpStatus }));

/**
 * Grape's `error!(message, httpStatus)` with a string: exactly `httpStatus` and {"error": message}
 * (the hooks API's 422 "Invalid url given").
 */
export const grapeError = (httpStatus: number, message: string, code: status = status.FAILED_PRECONDITION) =>
  new CanopyError(code, detail({ publicMessage: message, httpStatus, errorBody: true }));

/** render_validation_error!(model, httpStatus): {"message": {attribute: [...]}} at that status. */
export const invalidWith = (httpStatus: number, fieldErrors: FieldErrors) =>
  new CanopyError(
    status.FAILED_PRECONDITION,
    detail({
      httpStatus,
      fieldErrors: Object.fromEntries(Object.entries(fieldErrors).map(([k, v]) => [k, { messages: v }])),
    }),
  );

/**
 * ActiveRecord::RecordNotFound as GitLab's API answers it: 404 "404 Not found" (lower-case f), for a
 * record looked up inside a resource the caller may see (a member, a custom attribute's key), apart
 * from `notFound`'s "404 <Resource> Not Found".
 */
export const recordNotFound = () => apiError(404, "404 Not found", status.NOT_FOUND);

/**
 * Model errors as Ruby's Hash#inspect prints them (GitLab 13–17), for messages such as
 * `Failed to save group {:path=>["has already been taken"]}`.
 */
export function rubyInspect(errors: Record<string, string[]>): string {
  // Ruby escapes quotes, backslashes and control characters as JSON does (near enough for messages).
  const entries = Object.entries(errors).map(
    ([k, v]) => `:${k}=>[${v.map((s) => JSON.stringify(s)).join(", ")}]`,
  );
  return `{${entries.join(", ")}}`;
}

/** Server side: turns anything thrown by a handler into a grpc-js error with the detail trailer. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  const message = err instanceof Error ? err.message : String(err);
  const e =
    err instanceof CanopyError
      ? err
      : new CanopyError(databaseUnavailable(err) ? status.UNAVAILABLE : status.INTERNAL, detail({}), message);
  const metadata = new Metadata();
  metadata.set(ERROR_DETAIL_KEY, Buffer.from(common.ErrorDetail.encode(e.detail).finish()));
  return { code: e.code, details: e.detail.publicMessage || status[e.code], metadata };
}

/** Client side: reads the detail back from a failed call (empty detail when there is none). */
export function errorDetailOf(err: ServiceError): common.ErrorDetail {
  const raw = err.metadata?.get(ERROR_DETAIL_KEY)[0];
  return raw instanceof Buffer ? common.ErrorDetail.decode(raw) : detail({});
}

export function isServiceError(err: unknown): err is ServiceError {
  return typeof err === "object" && err !== null && "code" in err && "metadata" in err;
}

export function fieldErrorsOf(d: common.ErrorDetail): FieldErrors {
  return Object.fromEntries(Object.entries(d.fieldErrors).map(([k, v]) => [k, v.messages]));
}

/**
 * PostgreSQL's SQLSTATE classes and codes, and pg's own messages, that mean "the server is away"
 * (the last: the next query of a checked-out client whose connection was cut).
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-4]|53300)/;
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|ECONNREFUSED|ECONNRESET|the database system is|encountered a connection error and is not queryable/;

/**
 * Whether `err` says the database is restarting or unreachable (a PostgreSQL restart, a failover):
 * the caller gets UNAVAILABLE (503, worth a retry), not INTERNAL (500, a bug).
 */
export function databaseUnavailable(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    (typeof code === "string" && UNAVAILABLE_SQLSTATE.test(code)) ||
    (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message))
  );
}
