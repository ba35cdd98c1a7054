import { events } from "@canopy/protos";

/** Encodes and decodes one payload message (the shape ts-proto generates). */
interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

/**
 * One kind of event: its payload message and the NATS subject it is published on. Each context's
 * catalog lives beside its protos (e.g. `AUTH_EVENTS` in @canopy/protos); the kit knows none of them.
 */
export interface EventKind<T> {
  type: string;
  subject: string;
  codec: Codec<T>;
}

export const STREAM = "CANOPY";
export const STREAM_SUBJECTS = ["canopy.>"];
/** Where a consumer sends an event it could not handle after its last attempt. */
export const deadLetterSubject = (consumer: string) => `canopy.dlq.${consumer}`;

/** Decodes the payload of an envelope if it is of `kind`, else undefined. */
export function payloadOf<T>(envelope: events.Event, kind: EventKind<T>): T | undefined {
  return envelope.type === kind.type ? kind.codec.decode(envelope.payload) : undefined;
}
