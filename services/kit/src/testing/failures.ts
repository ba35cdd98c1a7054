import type { status } from "@grpc/grpc-js";
import { errorDetailOf, fieldErrorsOf, isServiceError } from "../errors";

/** A failed call as a test compares it: the gRPC code and the parts of its ErrorDetail. */
export interface Failure {
  code: status;
  resource: string;
  publicMessage: string;
  fieldErrors: Record<string, string[]>;
  httpStatus: number;
}

/** The status and ErrorDetail of a call that must fail; fails the test if it succeeds. */
export async function failure(call: Promise<unknown>): Promise<Failure> {
  let err: unknown;
  try {
    await call;
  } catch (e) {
    err = e;
  }
  if (err === undefined) throw new Error("expected the call to fail, but it succeeded");
  if (!isServiceError(err)) throw err;
  const detail = errorDetailOf(err);
  return {
    code: err.code,
    resource: detail.resource,
    publicMessage: detail.publicMessage,
    fieldErrors: fieldErrorsOf(detail),
    httpStatus: detail.httpStatus,
  };
}

/** An expected Failure: only the code is required; the detail's parts default to empty. */
export const failed = (code: status, detail: Partial<Omit<Failure, "code">> = {}): Failure => ({
  code,
  resource: "",
  publicMessage: "",
  fieldErrors: {},
  httpStatus: 0,
  ...detail,
});
