import * as events from "../gen/canopy/events/v1/events";

/**
 * The auth context's events: each kind names its payload message and its logical NATS subject
 * (under `canopy.auth.`; the kit publishes it in the deployment's stream, CANOPY_EVENT_STREAM). The shape is the kit's `EventKind`; it is written out here rather than imported
 * because the kit depends on this package, not the other way round.
 */
const kind = <T>(
  leaf: string,
  type: string,
  codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T },
  users?: (payload: T) => number[],
) => ({
  subject: `canopy.auth.${leaf}`,
  type: `canopy.events.v1.${type}`,
  codec,
  users,
});

/**
 * The user a user event is about: they read their new state at once in the services that copy users
 * (the kit's `EventKind.users`: an administrator unblocks someone, who then lists their projects).
 */
const subjectUser = (e: { userId: number }) => [e.userId];

export const AUTH_EVENTS = {
  userCreated: kind("user.created", "UserCreated", events.UserCreated, subjectUser),
  userUpdated: kind("user.updated", "UserUpdated", events.UserUpdated, subjectUser),
  userBlocked: kind("user.blocked", "UserBlocked", events.UserBlocked, subjectUser),
  userUnblocked: kind("user.unblocked", "UserUnblocked", events.UserUnblocked, subjectUser),
  userDeleted: kind("user.deleted", "UserDeleted", events.UserDeleted, subjectUser),
  tokenRevoked: kind("token.revoked", "TokenRevoked", events.TokenRevoked),
  applicationSettingsUpdated: kind(
    "settings.updated",
    "ApplicationSettingsUpdated",
    events.ApplicationSettingsUpdated,
  ),
} as const;

/** Every subject the auth context publishes on, for consumers that want all of them. */
export const AUTH_SUBJECTS = "canopy.auth.>";

/**
 * The user a UserCreated or UserUpdated describes, for the consumers that keep a copy of users.
 * Events recorded before auth published snapshots carry the username only: they stand for a user
 * named by their username, with an empty state (a consumer keeps its copy's) and every other field
 * at its default.
 */
export function userSnapshotOf(e: events.UserCreated | events.UserUpdated): events.UserSnapshot {
  return (
    e.user ?? {
      userId: e.userId,
      username: e.username,
      name: e.username,
      state: "",
      admin: false,
      external: false,
      canCreateGroup: true,
      avatarUrl: "",
      email: "",
      publicEmail: "",
      identities: [],
    }
  );
}
