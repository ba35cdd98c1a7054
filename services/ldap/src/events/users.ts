import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteUser, setUserState, upsertUser } from "../store/copies";
import { queueFirstSignIn } from "../store/first-sign-ins";
import { replaceIdentities } from "../store/identities";

/** GitLab syncs a new LDAP user's groups when the user was created less than 5 minutes ago. */
const NEW_USER_MS = 5 * 60_000;

/**
 * Keeps the copy of users in step with auth's events (a durable consumer shared by every replica,
 * reading the stream from its start; auth's one-time republication of every user fills the rest).
 * Every user event carries all the user's identities: the copy of them is replaced. A user created
 * with an LDAP identity of a configured server by no one (auth's first LDAP sign-in; not an
 * administrator's POST /users) is queued for its first-sign-in sync, unless the event is older than
 * GitLab's five minutes (a stream read again from its start).
 */
export const usersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "ldap-users",
  subjects: ["canopy.auth.user.>"],
  handle: (event, tx) => applyUserEvent(deps, event, tx),
});

export async function applyUserEvent(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const created = payloadOf(event, AUTH_EVENTS.userCreated);
  const snapshot = created ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) {
    const user = userSnapshotOf(snapshot);
    await upsertUser(tx, user);
    await replaceIdentities(tx, user.userId, user.identities);
    const fresh = event.occurredAt !== undefined && Date.now() - event.occurredAt.getTime() < NEW_USER_MS;
    // GitLab's first sign-in; an administrator creating a user with an identity is not one.
    const signIn = created && fresh && !event.actor?.userId;
    if (signIn)
      for (const identity of user.identities)
        if (deps.servers.some((s) => s.provider === identity.provider))
          await queueFirstSignIn(tx, {
            user_id: user.userId,
            provider: identity.provider,
            dn: identity.externUid,
          });
    return;
  }
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) return setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) return setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) return deleteUser(tx, deleted.userId);
  deps.log.debug({ type: event.type }, "user event not used by ldap");
}
