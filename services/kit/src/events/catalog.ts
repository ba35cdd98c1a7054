import { events } from "@canopy/protos";

/** Encodes and decodes one payload message (the shape ts-proto generates). */
interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

/** One kind of event: its payload message and the NATS subject it is published on. */
export interface EventKind<T> {
  type: string;
  subject: string;
  codec: Codec<T>;
}

const kind = <T>(subject: string, type: string, codec: Codec<T>): EventKind<T> => ({
  subject,
  type: `canopy.events.v1.${type}`,
  codec,
});

/** Every event Canopy publishes. Subjects sit under `canopy.<context>.`, all in stream CANOPY. */
export const EVENTS = {
  userCreated: kind("canopy.auth.user.created", "UserCreated", events.UserCreated),
  userUpdated: kind("canopy.auth.user.updated", "UserUpdated", events.UserUpdated),
  userBlocked: kind("canopy.auth.user.blocked", "UserBlocked", events.UserBlocked),
  userUnblocked: kind("canopy.auth.user.unblocked", "UserUnblocked", events.UserUnblocked),
  userDeleted: kind("canopy.auth.user.deleted", "UserDeleted", events.UserDeleted),
  tokenRevoked: kind("canopy.auth.token.revoked", "TokenRevoked", events.TokenRevoked),
  applicationSettingsUpdated: kind(
    "canopy.auth.settings.updated",
    "ApplicationSettingsUpdated",
    events.ApplicationSettingsUpdated,
  ),
} as const;

export const STREAM = "CANOPY";
export const STREAM_SUBJECTS = ["canopy.>"];
/** Where a consumer sends an event it could not handle after its last attempt. */
export const deadLetterSubject = (consumer: string) => `canopy.dlq.${consumer}`;

/** Decodes the payload of an envelope if it is of `kind`, else undefined. */
export function payloadOf<T>(envelope: events.Event, kind: EventKind<T>): T | undefined {
  return envelope.type === kind.type ? kind.codec.decode(envelope.payload) : undefined;
}
