import { randomUUID } from "node:crypto";
import { type NatsConnection, type EventKind, type EventStream } from "@canopy/kit";
import { events } from "@canopy/protos";
import { TEST_STREAM, unique } from "./infra";

// Subjects here are logical (`canopy.…`), as catalogs name them; each helper reads or writes where
// `stream` (by default the run's) keeps them.

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
  options: { msgID?: string; stream?: EventStream } = {},
) {
  const { msgID, stream = TEST_STREAM } = options;
  const bytes = events.Event.encode(event).finish();
  return nc.jetstream().publish(stream.subject(subject), bytes, msgID ? { msgID } : {});
}

/** How many messages the stream holds on exactly `subject`. */
export async function streamCount(nc: NatsConnection, subject: string, stream = TEST_STREAM) {
  const jsm = await nc.jetstreamManager();
  const physical = stream.subject(subject);
  const info = await jsm.streams.info(stream.name, { subjects_filter: physical });
  return info.state.subjects?.[physical] ?? 0;
}

/** The newest stream message on `subject`, or undefined. */
export async function lastMessage(nc: NatsConnection, subject: string, stream = TEST_STREAM) {
  const jsm = await nc.jetstreamManager();
  const request = { last_by_subj: stream.subject(subject) };
  return jsm.streams.getMessage(stream.name, request).catch(() => undefined);
}

/** Removes a test's messages from the stream. */
export async function purgeSubjects(nc: NatsConnection, filter: string, stream = TEST_STREAM) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.purge(stream.name, { filter: stream.subject(filter) });
}

/** Every stream message on exactly `subject`, oldest first. */
export async function messagesOn(nc: NatsConnection, subject: string, stream = TEST_STREAM) {
  const jsm = await nc.jetstreamManager();
  const found = [];
  for (let seq = 1; ;) {
    // `next_by_subj` is a server option the client's request type does not list yet.
    const request = { seq, next_by_subj: stream.subject(subject) } as unknown as { seq: number };
    const msg = await jsm.streams.getMessage(stream.name, request).catch(() => undefined);
    if (!msg) return found;
    found.push(msg);
    seq = msg.seq + 1;
  }
}
