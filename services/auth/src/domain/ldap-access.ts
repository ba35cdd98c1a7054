/**
 * What the directory's answer about a user's LDAP identity does to the user, as GitLab's
 * `Gitlab::Auth::Ldap::Access#allowed?` decides it (with User's `ldap_block` and `activate`
 * transitions). Pure: no I/O.
 *
 * - The person is there (at the identity's DN, still matching `user_filter`): allowed; a user the
 *   directory had blocked is active again.
 * - The person is gone, or no longer matches `user_filter`, or (on a server with
 *   `active_directory`) their account is disabled in Active Directory: not allowed; an active or
 *   deactivated user becomes `ldap_blocked`.
 *
 * Users an administrator blocked, banned or has still to approve are never changed: `ldap_block`
 * has no transition from those states, and only an LDAP block is lifted here.
 */
import type { UserStateName } from "./user-state";

export type DirectoryAnswer = "found" | "gone" | "disabled";

export interface LdapAccessDecision {
  allowed: boolean;
  /** The state the user moves to; absent when the state stays. */
  to?: UserStateName;
  /** GitLab's words for the log line ("LDAP account "<dn>" <reason>, blocking ..."). */
  reason?: string;
}

/** User's `ldap_block` event: from these states only. */
const LDAP_BLOCKABLE: readonly UserStateName[] = ["active", "deactivated"];

const GONE_REASONS: Record<Exclude<DirectoryAnswer, "found">, string> = {
  gone: "does not exist anymore",
  disabled: "is disabled in Active Directory",
};

export function decideLdapAccess(
  state: UserStateName,
  answer: DirectoryAnswer,
  activeDirectory: boolean,
): LdapAccessDecision {
  if (answer === "found") {
    if (state !== "ldap_blocked") return { allowed: true };
    return {
      allowed: true,
      to: "active",
      reason: activeDirectory ? "is not disabled anymore" : "is available again",
    };
  }
  if (!LDAP_BLOCKABLE.includes(state)) return { allowed: false };
  return { allowed: false, to: "ldap_blocked", reason: GONE_REASONS[answer] };
}
