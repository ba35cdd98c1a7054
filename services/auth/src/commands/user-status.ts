import { badParameter, invalid, notFound, requireSignedIn, withTransaction } from "@canopy/kit";
import type { userStatus } from "@canopy/protos";
import type { Deps } from "../deps";
import { isAvailability, isLive, nextStatus, statusErrors, type StatusFields } from "../domain/user-status";
import * as statuses from "../store/user-statuses";
import { findUserById, findUserByUsername } from "../store/users";

/** GitLab's /user/status and /users/:id_or_username/status (lib/api/users.rb, Users::SetStatusService). */

const NO_STATUS: userStatus.UserStatus = { set: false, emoji: "", availability: "" };

const toStatus = (s: StatusFields | null): userStatus.UserStatus =>
  s && isLive(s)
    ? {
        set: true,
        emoji: s.emoji,
        message: s.message ?? undefined,
        availability: s.availability,
        clearStatusAt: s.clearStatusAt ?? undefined,
      }
    : NO_STATUS;

/** Anyone may read a user's status (GitLab's :read_user, which a private profile does not take away). */
export async function getUserStatus(deps: Deps, request: userStatus.GetUserStatusRequest) {
  const user = request.userId
    ? await findUserById(deps.pool, request.userId)
    : await findUserByUsername(deps.pool, request.username);
  if (!user) throw notFound("User");
  return toStatus(await statuses.findStatus(deps.pool, user.id));
}

/** The actor's own status: set, changed or removed, in one transaction with its read. */
export async function setUserStatus(deps: Deps, request: userStatus.SetUserStatusRequest) {
  const actor = requireSignedIn(request.actor);
  if (request.availability && !isAvailability(request.availability))
    throw badParameter("availability does not have a valid value");
  return withTransaction(deps.pool, async (tx) => {
    const stored = await statuses.findStatus(tx, actor.userId, true);
    const current = stored && isLive(stored) ? stored : null;
    const next = nextStatus(current, {
      replace: request.replace,
      emoji: request.emoji,
      message: request.message,
      availability: request.availability,
      clearStatusAfter: request.clearStatusAfter,
    });
    if (!next) {
      await statuses.deleteStatus(tx, actor.userId);
      return NO_STATUS;
    }
    const errors = statusErrors(next);
    if (Object.keys(errors).length) throw invalid(errors);
    await statuses.saveStatus(tx, actor.userId, next);
    return toStatus(next);
  });
}
