import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { copiesChanged } from "./copies-changed";
import { deleteUser, setUserState, upsertUser, userRowOf } from "../store/users";

/**
 * Keeps this service's copy of users in step with auth's events (a durable consumer shared by every
 * replica, reading the stream from its start: users created before this service first ran arrive
 * too; auth republishes a snapshot of every user once for this consumer: its migration 0007).
 */
export const usersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "projects-users",
  subjects: ["canopy.auth.user.>"],
  handle: async (event, tx) => {
    if ((await applyUserEvent(deps, event, tx)) !== "unused") await copiesChanged(tx, event);
  },
});

export async function applyUserEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
): Promise<void | "unused"> {
  const snapshot = payloadOf(event, AUTH_EVENTS.userCreated) ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) {
    const u = userSnapshotOf(snapshot);
    // An empty state (events from before snapshots) keeps the copy's state.
    return upsertUser(tx, userRowOf(u), !u.state);
  }
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) return setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) return setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) return deleteUser(tx, deleted.userId);
  deps.log.debug({ type: event.type }, "user event not used by projects");
  return "unused";
}
