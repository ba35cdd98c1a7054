import { AsyncLocalStorage } from "node:async_hooks";
import type { EventPositions, WrittenEvents } from "./events/positions";

/** Per-request values that logs and outgoing calls pick up without threading them through every function. */
export interface RequestContext {
  requestId: string;
  /**
   * What this request's writes put on the event stream: in a service, the events its transactions
   * published (answered in a trailer); in the gateway, what the services it called answered.
   */
  written?: WrittenEvents;
  /** Gateway: the caller's recent writes, which every call of this request asks services to read after. */
  readAfter?: EventPositions;
  /**
   * Service: when (epoch ms) a committed write stops waiting for its events to reach the stream and
   * answers without their positions, so a broker outage cannot turn a committed write into a
   * deadline error (the outbox relay publishes them when the broker is back).
   */
  publishBy?: number;
  /**
   * Service: the caller's deadline (epoch ms) until the call's first transaction commits. A
   * transaction that would commit after it rolls back instead: the caller has been told the call
   * failed (503), so committing would leave a write behind that its client retries into a conflict.
   * A later transaction of the same call goes on regardless, finishing what the first began.
   */
  commitBy?: number;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;
