import { recordEvent, type Queryable } from "@canopy/kit";
import { AUTH_EVENTS, type common } from "@canopy/protos";
import { listIdentities } from "../store/identities";
import { toUserSnapshot, type UserRow } from "../store/users";

/**
 * UserCreated and UserUpdated carry the user as the recording transaction commits it: consumers
 * (the groups service's projection of users) keep the latest snapshot and never call auth back.
 * Pass the row as read or returned inside the same transaction; its identities are read in it too.
 */
export async function recordUserCreated(tx: Queryable, user: UserRow, actor?: common.Actor) {
  await recordEvent(
    tx,
    AUTH_EVENTS.userCreated,
    {
      userId: user.id,
      username: user.username,
      user: toUserSnapshot(user, await listIdentities(tx, user.id)),
    },
    actor,
  );
}

export async function recordUserUpdated(tx: Queryable, user: UserRow, actor?: common.Actor) {
  await recordEvent(
    tx,
    AUTH_EVENTS.userUpdated,
    {
      userId: user.id,
      username: user.username,
      user: toUserSnapshot(user, await listIdentities(tx, user.id)),
    },
    actor,
  );
}
