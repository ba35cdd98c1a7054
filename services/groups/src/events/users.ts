import { payloadOf, recordEvent, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, GROUPS_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteMembershipsOf } from "../store/members";
import { deleteProjectMembershipsOf } from "../store/project-access";
import { deleteUserNamespace, upsertUserNamespace } from "../store/user-namespaces";
import { deleteUser, setUserState, upsertUser, userRowOf } from "../store/users";
import { namespaceSnapshot } from "./snapshot";

/**
 * Keeps this service's copy of users, and their personal namespaces, in step with auth's events
 * (a durable consumer: every replica shares it, each event is applied once, in its transaction).
 */
export const usersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "groups-users",
  subjects: ["canopy.auth.user.>"],
  handle: (event, tx) => applyUserEvent(deps, event, tx),
});

export async function applyUserEvent(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const snapshot = payloadOf(event, AUTH_EVENTS.userCreated) ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) return applySnapshot(tx, snapshot);
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) return setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) return setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) return forgetUser(tx, deleted.userId);
  deps.log.debug({ type: event.type }, "user event not used by groups");
}

async function applySnapshot(tx: PoolClient, e: events.UserCreated | events.UserUpdated) {
  const u = userSnapshotOf(e);
  // An empty state (old events) keeps the copy's state.
  await upsertUser(tx, { ...userRowOf(u), state: u.state || undefined });
  const changed = await upsertUserNamespace(tx, { id: u.userId, username: u.username, name: u.name });
  if (changed)
    await recordEvent(tx, GROUPS_EVENTS.userNamespaceChanged, { namespace: namespaceSnapshot(changed) });
}

/** A deleted user's memberships go (each one an event, for hooks), then their namespace and copy. */
async function forgetUser(tx: PoolClient, userId: number) {
  for (const m of await deleteMembershipsOf(tx, userId))
    await recordEvent(tx, GROUPS_EVENTS.memberRemoved, {
      member: {
        groupId: m.namespace_id,
        userId: m.user_id,
        accessLevel: m.access_level,
        expiresAt: m.expires_at ?? "",
        createdById: m.created_by_id ?? 0,
      },
      // The projects service forgets a deleted user's project memberships from auth's event.
      withSubresources: false,
    });
  // The projects service forgets their project memberships from the same event, publishing none.
  await deleteProjectMembershipsOf(tx, userId);
  const namespace = await deleteUserNamespace(tx, userId);
  if (namespace)
    await recordEvent(tx, GROUPS_EVENTS.userNamespaceRemoved, { namespace: namespaceSnapshot(namespace) });
  await deleteUser(tx, userId);
}
