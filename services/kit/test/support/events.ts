import { randomUUID } from "node:crypto";
import { type NatsConnection, STREAM, type EventKind } from "@canopy/kit";
import { events } from "@canopy/protos";
import { unique } from "./infra";

/** A subject tree of its own (`canopy.test.<random>.>`) so concurrent tests never see each other's events. */
export function testSubjects() {
  const root = `canopy.test.${unique("t_")}`;
  return { root, all: `${root}.>`, subject: (leaf = "x") => `${root}.${leaf}` };
}

/** An event kind on a test subject, carrying a UserCreated payload. */
export const testKind = (subject: string): EventKind<events.UserCreated> => ({
  type: "canopy.events.v1.UserCreated",
  subject,
  codec: events.UserCreated,
});

export function envelope(
  kind: EventKind<events.UserCreated>,
  userId: number,
  id = randomUUID(),
): events.Event {
  return {
    id,
    type: kind.type,
    occurredAt: new Date(),
    actor: undefined,
    traceContext: {},
    payload: Buffer.from(kind.codec.encode({ userId, username: `user${userId}` }).finish()),
  };
}

/** Publishes an envelope straight to JetStream (bypassing the outbox), as a relay would. */
export async function publishEnvelope(
  nc: NatsConnection,
  subject: string,
  event: events.Event,
  msgID?: string,
) {
  return nc.jetstream().publish(subject, events.Event.encode(event).finish(), msgID ? { msgID } : {});
}

/** How many messages the CANOPY stream holds on exactly `subject`. */
export async function streamCount(nc: NatsConnection, subject: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(STREAM, { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

/** The newest stream message on `subject`, or undefined. */
export async function lastMessage(nc: NatsConnection, subject: string) {
  const jsm = await nc.jetstreamManager();
  return jsm.streams.getMessage(STREAM, { last_by_subj: subject }).catch(() => undefined);
}

/** Removes a test's messages from the shared stream. */
export async function purgeSubjects(nc: NatsConnection, filter: string) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.purge(STREAM, { filter });
}

/** Every stream message on exactly `subject`, oldest first. */
export async function messagesOn(nc: NatsConnection, subject: string) {
  const jsm = await nc.jetstreamManager();
  const found = [];
  for (let seq = 1; ;) {
    // `next_by_subj` is a server option the client's request type does not list yet.
    const request = { seq, next_by_subj: subject } as unknown as { seq: number };
    const msg = await jsm.streams.getMessage(STREAM, request).catch(() => undefined);
    if (!msg) return found;
    found.push(msg);
    seq = msg.seq + 1;
  }
}
