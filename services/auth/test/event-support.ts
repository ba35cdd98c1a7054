/**
 * Reading auth's events in tests as other services do: a broadcast consumer on `canopy.auth.>`,
 * started before anything happens (it delivers only what is published from then on).
 */
import {
  connectNats,
  createLogger,
  payloadOf,
  startBroadcastConsumer,
  type EventKind,
  type EventStream,
  type NatsConnection,
  type Subscription,
} from "@canopy/kit";
import type { events } from "@canopy/protos";
import { waitFor } from "./support";

export interface EventReader {
  /** Every event received so far, in stream order. */
  received: events.Event[];
  /** The first received event of `kind` whose payload satisfies `match`, waiting up to `timeoutMs`. */
  eventOf<T>(
    kind: EventKind<T>,
    match: (payload: T) => boolean,
    timeoutMs?: number,
  ): Promise<{ event: events.Event; payload: T }>;
  /** The payloads of `kind` received so far that satisfy `match`. */
  payloadsOf<T>(kind: EventKind<T>, match: (payload: T) => boolean): T[];
  stop(): Promise<void>;
}

export async function startEventReader(natsUrl: string, stream: EventStream): Promise<EventReader> {
  const log = createLogger("auth-events-test", "silent");
  const nc: NatsConnection = await connectNats(natsUrl, log, "auth-events-test", stream);
  const received: events.Event[] = [];
  const subscription: Subscription = await startBroadcastConsumer({
    nc,
    stream,
    log,
    subjects: ["canopy.auth.>"],
    handle: (event) => void received.push(event),
  });
  const payloadsOf = <T>(kind: EventKind<T>, match: (payload: T) => boolean): T[] =>
    received.flatMap((event) => {
      const payload = payloadOf(event, kind);
      return payload !== undefined && match(payload) ? [payload] : [];
    });
  return {
    received,
    payloadsOf,
    eventOf: (kind, match, timeoutMs = 5_000) =>
      waitFor(
        kind.type,
        () => {
          for (const event of received) {
            const payload = payloadOf(event, kind);
            if (payload !== undefined && match(payload)) return { event, payload };
          }
          return undefined;
        },
        timeoutMs,
      ),
    stop: async () => {
      await subscription.stop();
      await nc.drain();
    },
  };
}

export const byUser = (userId: number) => (p: { userId: number }) => p.userId === userId;
