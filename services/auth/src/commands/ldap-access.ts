import {
  LdapConnectionError,
  withDirectory,
  withTransaction,
  type LdapDirectory,
  type LdapPerson,
  type LdapServer,
} from "@canopy/kit";
import { decideLdapAccess, type DirectoryAnswer } from "../domain/ldap-access";
import type { UserStateName } from "../domain/user-state";
import type { Deps } from "../deps";
import { externUidOf, stampCredentialCheck } from "../store/ldap-checks";
import { lockUserById, updateUser, type UserRow } from "../store/users";
import { recordUserUpdated } from "./user-events";

/**
 * GitLab's `Gitlab::Auth::Ldap::Access`: the directory is asked about a user's LDAP identity and
 * the answer moves the user into or out of `ldap_blocked` (rules in domain/ldap-access.ts). The
 * scheduled check (ldap-user-check.ts) and LDAP sign-in (ldap-sign-in.ts) both come here.
 */

/** Which identity is checked: the user's identity of `provider`, extern_uid its normalized DN. */
export interface IdentityToCheck {
  userId: number;
  provider: string;
  externUid: string;
}

export interface AccessOutcome {
  allowed: boolean;
  /** The user as the check left them; undefined when the user is gone. */
  user?: UserRow;
  /** The state the check moved the user to, if it moved them. */
  movedTo?: UserStateName;
}

/**
 * What the directory says of the person at `dn`: there (and still matching `user_filter`), gone,
 * or, on a server with `active_directory`, disabled in AD. Throws LdapConnectionError.
 */
export async function askDirectory(directory: LdapDirectory, dn: string): Promise<DirectoryAnswer> {
  const person = await directory.findPersonByDn(dn);
  if (!person) return "gone";
  return directory.server.activeDirectory && (await directory.isDisabledInActiveDirectory(person.rawDn))
    ? "disabled"
    : "found";
}

/**
 * Applies the directory's answer to the user, in one transaction with the user row locked: a state
 * change is written with its UserUpdated event (every gateway drops the user's cached
 * authentications on it, as for the API's state actions), and an allowed user's
 * last_credential_check_at is set. An answer about an identity the user no longer holds (changed or
 * removed while the directory was asked) changes nothing.
 */
export async function applyLdapAccess(
  deps: Pick<Deps, "pool" | "log">,
  identity: IdentityToCheck,
  answer: DirectoryAnswer,
  activeDirectory: boolean,
): Promise<AccessOutcome> {
  return withTransaction(deps.pool, async (tx) => {
    const user = await lockUserById(tx, identity.userId);
    if (!user) return { allowed: false };
    const held = await externUidOf(tx, user.id, identity.provider);
    if (held?.toLowerCase() !== identity.externUid.toLowerCase()) return { allowed: false, user };
    const decision = decideLdapAccess(user.state, answer, activeDirectory);
    let after = user;
    if (decision.to) {
      after = (await updateUser(tx, user.id, { state: decision.to }))!;
      await recordUserUpdated(tx, after);
      deps.log.info(
        {
          userId: user.id,
          provider: identity.provider,
          dn: identity.externUid,
          from: user.state,
          to: decision.to,
        },
        `LDAP account ${decision.reason}, ${decision.to === "ldap_blocked" ? "blocking" : "unblocking"} the user`,
      );
    }
    if (decision.allowed) await stampCredentialCheck(tx, user.id);
    return { allowed: decision.allowed, user: after, movedTo: decision.to };
  });
}

/**
 * GitLab's `Access.allowed?` at an LDAP sign-in: the person has just bound, so they are there; on an
 * Active Directory server their account must not be disabled. A user the directory had blocked is
 * active again and signs in. Undefined when the directory could not be asked (the sign-in fails, as
 * GitLab's check answers false on a connection error).
 */
export async function accessAtSignIn(
  deps: Deps,
  server: LdapServer,
  person: LdapPerson,
  user: UserRow,
): Promise<AccessOutcome | undefined> {
  let answer: DirectoryAnswer = "found";
  if (server.activeDirectory) {
    try {
      const disabled = await withDirectory(
        server,
        (directory) => directory.isDisabledInActiveDirectory(person.rawDn),
        deps.log,
      );
      if (disabled) answer = "disabled";
    } catch (e) {
      if (!(e instanceof LdapConnectionError)) throw e;
      deps.log.warn(
        { provider: server.provider, err: e.message },
        "LDAP sign-in failed: directory unavailable",
      );
      return undefined;
    }
  }
  const identity = { userId: user.id, provider: server.provider, externUid: person.dn };
  return applyLdapAccess(deps, identity, answer, server.activeDirectory);
}
