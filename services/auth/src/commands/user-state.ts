import {
  apiError,
  badParameter,
  grpcStatus,
  notFound,
  recordEvent,
  requireAdmin,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { AUTH_EVENTS, userState } from "@canopy/protos";
import {
  decideStateAction,
  isDormant,
  NOT_ALLOWED,
  type Decision,
  type StateAction,
} from "../domain/user-state";
import type { Deps } from "../deps";
import { revokeTokensOfUser } from "../store/oauth-tokens";
import * as users from "../store/users";
import { announceRevoked } from "./oauth/revoke-tokens";
import { recordUserUpdated } from "./user-events";

const { UserStateAction: A, UserStateOutcome: Outcome } = userState;

const ACTIONS = new Map<userState.UserStateAction, StateAction>([
  [A.USER_STATE_ACTION_BLOCK, "block"],
  [A.USER_STATE_ACTION_UNBLOCK, "unblock"],
  [A.USER_STATE_ACTION_BAN, "ban"],
  [A.USER_STATE_ACTION_UNBAN, "unban"],
  [A.USER_STATE_ACTION_DEACTIVATE, "deactivate"],
  [A.USER_STATE_ACTION_ACTIVATE, "activate"],
  [A.USER_STATE_ACTION_APPROVE, "approve"],
  [A.USER_STATE_ACTION_REJECT, "reject"],
]);

const refusal = (d: Extract<Decision, { kind: "refuse" }>) =>
  apiError(
    d.status,
    d.message,
    d.status === 409 ? grpcStatus.FAILED_PRECONDITION : grpcStatus.PERMISSION_DENIED,
  );

/**
 * A deactivated user who signs in on the web is active again (GitLab's sign-in: "Welcome back! Your
 * account had been deactivated due to inactivity but is now reactivated."). The row as it is after.
 */
export async function reactivateAtSignIn(deps: Deps, userId: number): Promise<users.UserRow | undefined> {
  return withTransaction(deps.pool, async (tx) => {
    const user = await users.lockUserById(tx, userId);
    if (user?.state !== "deactivated") return user;
    const updated = (await users.updateUser(tx, userId, { state: "active" }))!;
    await recordUserUpdated(tx, updated);
    deps.log.info({ userId }, "reactivated a deactivated user at sign-in");
    return updated;
  });
}

/**
 * One state action on one user, as GitLab's Users API does it (rules in domain/user-state.ts).
 * The user row is locked for the decision and the write, so two actions at once apply in turn.
 * A change records UserUpdated with the new state: every gateway drops the user's cached
 * authentications on it, and the services keeping copies of users take the state from it.
 * A rejected user is removed as DELETE /users/:id removes one (tokens revoked, UserDeleted).
 */
export async function changeUserState(
  deps: Deps,
  req: userState.ChangeUserStateRequest,
): Promise<userState.ChangeUserStateResponse> {
  const action = ACTIONS.get(req.action);
  // proto3 sends an unset enum as 0: that must not quietly do anything.
  if (!action) throw badParameter("action does not have a valid value");
  const actor = requireSignedIn(req.actor);
  // Approve and reject find the user first and let their service refuse non-administrators.
  const notAllowed = NOT_ALLOWED[action];
  if (!notAllowed) requireAdmin(actor);
  return withTransaction(deps.pool, async (tx) => {
    const user = await users.lockUserById(tx, req.userId);
    if (!user) throw notFound("User");
    if (notAllowed && !actor.admin) throw apiError(403, notAllowed, grpcStatus.PERMISSION_DENIED);
    const decision = decideStateAction(action, {
      state: user.state,
      self: user.id === actor.userId,
      dormant: isDormant(user.last_activity_on, user.current_sign_in_at, new Date()),
    });
    switch (decision.kind) {
      case "refuse":
        throw refusal(decision);
      case "already":
        return { outcome: Outcome.USER_STATE_OUTCOME_ALREADY, state: user.state };
      case "no_transition":
        return { outcome: Outcome.USER_STATE_OUTCOME_NO_TRANSITION, state: user.state };
      case "remove":
        await announceRevoked(tx, await revokeTokensOfUser(tx, user.id));
        await users.deleteUser(tx, user.id);
        await recordEvent(tx, AUTH_EVENTS.userDeleted, { userId: user.id }, actor);
        deps.log.info({ userId: user.id, by: actor.userId }, "rejected a user pending approval");
        return { outcome: Outcome.USER_STATE_OUTCOME_CHANGED, state: "" };
      case "change": {
        const updated = (await users.updateUser(tx, user.id, { state: decision.to }))!;
        await recordUserUpdated(tx, updated, actor);
        deps.log.info(
          { userId: user.id, by: actor.userId, from: user.state, to: decision.to },
          `user ${action}`,
        );
        return { outcome: Outcome.USER_STATE_OUTCOME_CHANGED, state: decision.to };
      }
    }
  });
}
