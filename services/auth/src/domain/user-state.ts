/**
 * GitLab's user state machine (app/models/user.rb) and the rules its Users API adds on top of it
 * (lib/api/users.rb and Users::{Ban,Unban,Deactivate,Approve,Reject}Service, GitLab 17.5): what
 * each of the eight state actions does to a user in a given state. Pure: no I/O.
 *
 * A refusal carries GitLab's HTTP status and message as its API answers them, because those are
 * the contract: `forbidden!(reason)` answers "403 Forbidden - reason", a service's error answers
 * its message alone.
 */

export const USER_STATES = [
  "active",
  "blocked",
  "ldap_blocked",
  "blocked_pending_approval",
  "banned",
  "deactivated",
] as const;
export type UserStateName = (typeof USER_STATES)[number];

export type StateAction =
  "block" | "unblock" | "ban" | "unban" | "deactivate" | "activate" | "approve" | "reject";

export type Decision =
  | { kind: "change"; to: UserStateName }
  /** Reject: the pending user is removed. */
  | { kind: "remove" }
  /** Already there; GitLab's endpoint `break`s and answers null. */
  | { kind: "already" }
  /** The state machine refuses the event; GitLab answers its return value, false. */
  | { kind: "no_transition" }
  | { kind: "refuse"; status: 403 | 409; message: string };

/** GitLab's `deactivate_dormant_users_period` default: the days a user must have been inactive. */
export const DORMANT_DAYS = 90;

/** User#blocked?: true in every blocked-like state. */
export const isBlocked = (s: UserStateName) =>
  s === "blocked" || s === "ldap_blocked" || s === "blocked_pending_approval" || s === "banned";

/** The event `activate` moves any of these to active (the state machine's `activate` transitions). */
const ACTIVATABLE: readonly UserStateName[] = [
  "deactivated",
  "blocked",
  "ldap_blocked",
  "blocked_pending_approval",
  "banned",
];

export interface Subject {
  state: UserStateName;
  /** The caller acts on their own account. */
  self: boolean;
  /** User#can_be_deactivated?'s activity part: no activity within DORMANT_DAYS. */
  dormant: boolean;
}

const forbidden = (reason: string): Decision => ({
  kind: "refuse",
  status: 403,
  message: `403 Forbidden - ${reason}`,
});
const refuse = (status: 403 | 409, message: string): Decision => ({ kind: "refuse", status, message });
const change = (to: UserStateName): Decision => ({ kind: "change", to });

/** Each action, in GitLab's order of checks. Caller permission (administrator) is checked before. */
const RULES: Record<StateAction, (u: Subject) => Decision> = {
  block: (u) => {
    if (u.state === "ldap_blocked") return forbidden("LDAP blocked users cannot be modified by the API");
    if (u.self) return forbidden("The API initiating user cannot be blocked by the API");
    if (isBlocked(u.state)) return { kind: "already" };
    return change("blocked");
  },
  unblock: (u) => {
    if (u.state === "ldap_blocked") return forbidden("LDAP blocked users cannot be unblocked by the API");
    if (u.state === "deactivated") return forbidden("Deactivated users cannot be unblocked by the API");
    // Users::UnblockService calls `activate`, which also lifts a ban or a pending approval.
    return ACTIVATABLE.includes(u.state) ? change("active") : { kind: "no_transition" };
  },
  ban: (u) => (u.state === "active" ? change("banned") : refuse(403, `You cannot ban ${u.state} users.`)),
  unban: (u) => (u.state === "banned" ? change("active") : refuse(403, `You cannot unban ${u.state} users.`)),
  deactivate: (u) => {
    if (u.state === "deactivated") return { kind: "already" };
    if (isBlocked(u.state)) return refuse(403, "Error occurred. A blocked user cannot be deactivated");
    if (!u.dormant)
      return refuse(
        403,
        `The user you are trying to deactivate has been active in the past ${DORMANT_DAYS} days and cannot be deactivated`,
      );
    return change("deactivated");
  },
  activate: (u) => {
    if (isBlocked(u.state)) return forbidden("A blocked user must be unblocked to be activated");
    return u.state === "deactivated" ? change("active") : { kind: "no_transition" };
  },
  approve: (u) =>
    u.state === "blocked_pending_approval"
      ? change("active")
      : refuse(409, "The user you are trying to approve is not pending approval"),
  reject: (u) =>
    u.state === "blocked_pending_approval"
      ? { kind: "remove" }
      : refuse(409, "User does not have a pending request"),
};

export const decideStateAction = (action: StateAction, subject: Subject): Decision => RULES[action](subject);

/**
 * What a non-administrator is told: approve and reject leave the permission check to their service
 * (after the user was found); the others answer a plain 403 before looking the user up.
 */
export const NOT_ALLOWED: Partial<Record<StateAction, string>> = {
  approve: "You are not allowed to approve a user",
  reject: "You are not allowed to reject a user",
};

/**
 * User#no_recent_activity?: the later of the last activity day and the latest sign-in (GitLab's
 * last_active_at reads current_sign_in_at) is at least DORMANT_DAYS ago; a user with neither counts
 * as dormant.
 */
export function isDormant(
  lastActivityOn: Date | string | null,
  currentSignInAt: Date | null,
  now: Date,
): boolean {
  const activity = lastActivityOn === null ? undefined : new Date(lastActivityOn).getTime();
  const times = [activity, currentSignInAt?.getTime()].filter(
    (t): t is number => t !== undefined && !isNaN(t),
  );
  const last = times.length ? Math.max(...times) : 0;
  return last <= now.getTime() - DORMANT_DAYS * 86_400_000;
}
