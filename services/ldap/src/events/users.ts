import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteUser, setUserState, upsertUser } from "../store/copies";

/**
 * Keeps the copy of users in step with auth's events (a durable consumer shared by every replica,
 * reading the stream from its start; auth's one-time republication of every user fills the rest).
 */
export const usersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "ldap-users",
  subjects: ["canopy.auth.user.>"],
  handle: (event, tx) => applyUserEvent(deps, event, tx),
});

export async function applyUserEvent(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const snapshot = payloadOf(event, AUTH_EVENTS.userCreated) ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) return upsertUser(tx, userSnapshotOf(snapshot));
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) return setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) return setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) return deleteUser(tx, deleted.userId);
  deps.log.debug({ type: event.type }, "user event not used by ldap");
}
