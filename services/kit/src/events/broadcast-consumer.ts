import { DeliverPolicy, type NatsConnection } from "nats";
import type { Logger } from "pino";
import { events } from "@canopy/protos";
import type { Subscription } from "./consumer";
import type { EventStream } from "./stream";

/**
 * Every replica sees every event (an ephemeral ordered consumer starting now), for in-memory
 * reactions such as dropping cached answers. Handlers must be idempotent and quick.
 */
export async function startBroadcastConsumer(options: {
  nc: NatsConnection;
  stream: EventStream;
  log: Logger;
  /** Logical subjects (`canopy.auth.>`); the stream maps them. */
  subjects: string[];
  handle: (event: events.Event) => Promise<void> | void;
}): Promise<Subscription> {
  const subjects = options.subjects.map(options.stream.subject);
  const consumer = await options.nc.jetstream().consumers.get(options.stream.name, {
    // A single subject as a string: nats-server 2.9 (Debian 12's) knows only one filter.
    filterSubjects: subjects.length === 1 ? subjects[0]! : subjects,
    deliver_policy: DeliverPolicy.New,
  });
  const messages = await consumer.consume();
  const loop = (async () => {
    for await (const msg of messages) {
      try {
        await options.handle(events.Event.decode(msg.data));
      } catch (err) {
        options.log.error({ err, subject: msg.subject }, "broadcast event handling failed");
      }
    }
  })();
  return {
    stop: async () => {
      await messages.close();
      await loop;
    },
  };
}
