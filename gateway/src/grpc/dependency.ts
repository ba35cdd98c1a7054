import { isServiceError } from "@canopy/kit";

/**
 * Which service a failed gRPC call went to. Every client the gateway builds tags its rejections
 * (see clients.ts), so the one error mapping can say "groups service is not answering" instead of
 * guessing. The error object stays a grpc-js ServiceError: code checks elsewhere keep working.
 */
const DEPENDENCY = Symbol("canopy.dependency");

type Tagged = { [DEPENDENCY]?: string };

export function tagDependency(err: unknown, service: string): unknown {
  if (isServiceError(err)) (err as Tagged)[DEPENDENCY] ??= service;
  return err;
}

/** The service a failed call went to, or undefined for an error no client tagged. */
export const dependencyOf = (err: unknown): string | undefined =>
  err && typeof err === "object" ? (err as Tagged)[DEPENDENCY] : undefined;
