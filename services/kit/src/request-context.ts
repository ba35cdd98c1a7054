import { AsyncLocalStorage } from "node:async_hooks";

/** Per-request values that logs and outgoing calls pick up without threading them through every function. */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;
