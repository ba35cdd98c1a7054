import { events } from "@canopy/protos";

/** Encodes and decodes one payload message (the shape ts-proto generates). */
interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

/**
 * One kind of event: its payload message and the NATS subject it is published on. Each context's
 * catalog lives beside its protos (e.g. `AUTH_EVENTS` in @canopy/protos); the kit knows none of them.
 * Subjects are logical (`canopy.…`): the deployment's `EventStream` says where they are published.
 */
export interface EventKind<T> {
  type: string;
  subject: string;
  codec: Codec<T>;
  /**
   * Users whose own reads the event changes, besides its actor's (the member a `MemberAdded` adds):
   * the gateway lets them, too, read the write at once in services that copy it (events/positions.ts).
   */
  users?(payload: T): number[];
}

/** Where a consumer sends an event it could not handle after its last attempt (a logical subject). */
export const deadLetterSubject = (consumer: string) => `canopy.dlq.${consumer}`;

/** Decodes the payload of an envelope if it is of `kind`, else undefined. */
export function payloadOf<T>(envelope: events.Event, kind: EventKind<T>): T | undefined {
  return envelope.type === kind.type ? kind.codec.decode(envelope.payload) : undefined;
}
