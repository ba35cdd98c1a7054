import { status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import { errorDetailOf, fieldErrorsOf, isServiceError } from "@canopy/kit";
import { dependencyOf } from "../grpc/dependency";

/** An HTTP answer to give instead of the normal one; rendered by the error middleware. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === "string" ? body : JSON.stringify(body));
  }
}

// GitLab's bodies (lib/api/helpers.rb), one constructor per shape.
export const notFoundError = (resource = "") =>
  new HttpError(404, { message: `404 ${resource ? `${resource} ` : ""}Not Found` });
export const unauthorizedError = () => new HttpError(401, { message: "401 Unauthorized" });
export const forbiddenError = (reason = "") =>
  new HttpError(403, { message: reason ? `403 Forbidden - ${reason}` : "403 Forbidden" });
export const badRequestError = (reason = "") =>
  new HttpError(400, { message: reason ? `400 Bad request - ${reason}` : "400 Bad request" });
/** Grape's parameter errors: `{"error":"name is missing"}`. */
export const paramError = (message: string) => new HttpError(400, { error: message });
export const routeNotFoundError = () => new HttpError(404, { error: "404 Not Found" });

/**
 * The status detail a service answers (UNAUTHENTICATED) to a call whose gateway signature it cannot
 * verify (services/kit/src/grpc/server.ts). That is the gateway's and the service's keys disagreeing,
 * a deployment fault: the user did nothing wrong, so it must not read as their 401.
 */
const CALL_NOT_SIGNED = "call not signed by the gateway";

/**
 * The one place where a gRPC status and its ErrorDetail become GitLab's HTTP status and body.
 * A dependency that is down or slow is a 503 with a clear message, never a 500 or a hang.
 */
export function httpErrorFromGrpc(err: ServiceError, dependency: string): HttpError {
  const detail = errorDetailOf(err);
  const message = detail.publicMessage;
  if (detail.httpStatus) {
    if (detail.errorBody) return new HttpError(detail.httpStatus, { error: message });
    const fields = fieldErrorsOf(detail);
    return new HttpError(detail.httpStatus, Object.keys(fields).length ? { message: fields } : { message });
  }
  switch (err.code) {
    case grpcStatus.NOT_FOUND:
      return notFoundError(detail.resource);
    case grpcStatus.PERMISSION_DENIED:
      return forbiddenError(message);
    case grpcStatus.UNAUTHENTICATED:
      return err.details === CALL_NOT_SIGNED
        ? new HttpError(503, {
            message: `503 Service Unavailable - ${dependency} does not accept the gateway's signature`,
          })
        : unauthorizedError();
    case grpcStatus.INVALID_ARGUMENT: {
      const fields = fieldErrorsOf(detail);
      return Object.keys(fields).length
        ? new HttpError(400, { message: fields })
        : paramError(message || "400 Bad request");
    }
    case grpcStatus.FAILED_PRECONDITION:
      return badRequestError(message);
    case grpcStatus.ALREADY_EXISTS:
      return new HttpError(409, { message: message || "409 Conflict" });
    case grpcStatus.RESOURCE_EXHAUSTED:
      return new HttpError(429, { message: "429 Too Many Requests" });
    case grpcStatus.UNAVAILABLE:
    case grpcStatus.DEADLINE_EXCEEDED:
      return new HttpError(503, { message: `503 Service Unavailable - ${dependency} is not answering` });
    default:
      return new HttpError(500, { message: "500 Internal Server Error" });
  }
}

export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  // Every gateway client tags its failures with its service (grpc/clients.ts).
  if (isServiceError(err)) return httpErrorFromGrpc(err, `${dependencyOf(err) ?? "a"} service`);
  return undefined;
}
