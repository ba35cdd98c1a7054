import { withTransaction, type LdapPerson, type LdapServer, type Queryable } from "@canopy/kit";
import { cleanUsername, isReservedUsername } from "../domain/users";
import type { Deps } from "../deps";
import { findUserIdByIdentity, upsertIdentity } from "../store/identities";
import { findUserByUsername, insertUser, lockUserById, type UserRow } from "../store/users";
import { recordUserCreated, recordUserUpdated } from "./user-events";

/**
 * The Canopy user of a person who has just proven their directory password, as GitLab's
 * `Gitlab::Auth::Ldap::User#find_user` finds one: by the identity (provider, normalized DN); else
 * the user with the person's email, who gets the identity (GitLab links LDAP accounts by email
 * unconditionally: the directory is trusted); else a new user, username from the directory
 * (cleaned and made unique as GitLab does), name and email from it, no password of its own. With
 * the server's `block_auto_created_users`, that new user waits for an administrator's approval
 * (state blocked_pending_approval, as GitLab's OAuth::User#save blocks it), signing in only once
 * approved (POST /users/:id/approve).
 *
 * One transaction, serialized per (provider, DN) so that two first sign-ins at once make one user.
 */
export async function userOfLdapPerson(
  deps: Deps,
  person: LdapPerson,
  server?: Pick<LdapServer, "blockAutoCreatedUsers">,
): Promise<UserRow> {
  return withTransaction(deps.pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [
      `ldap-identity:${person.provider}:${person.dn}`,
    ]);
    const known = await findUserIdByIdentity(tx, person.provider, person.dn);
    if (known !== undefined) {
      const user = await lockUserById(tx, known);
      if (user) return user;
    }
    const byEmail = person.email ? await lockUserByEmail(tx, person.email) : undefined;
    if (byEmail) {
      await upsertIdentity(tx, byEmail.id, person.provider, person.dn);
      await recordUserUpdated(tx, byEmail);
      return byEmail;
    }
    const username = await uniqueUsername(tx, cleanUsername(person.username));
    const created = await insertUser(tx, {
      username,
      // GitLab gives a person without an address a placeholder (OAuth::AuthHash#generate_temporarily_email).
      email: person.email ?? `temp-email-for-oauth-${username}@gitlab.localhost`,
      name: person.name.trim().slice(0, 255) || username,
      password_hash: null,
      confirmed_at: new Date(),
      ...(server?.blockAutoCreatedUsers ? { state: "blocked_pending_approval" } : {}),
    });
    await upsertIdentity(tx, created.id, person.provider, person.dn);
    await recordUserCreated(tx, created);
    deps.log.info({ userId: created.id, provider: person.provider }, "created a user at first LDAP sign-in");
    return created;
  });
}

async function lockUserByEmail(tx: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await tx.query<UserRow>(
    "SELECT * FROM users WHERE lower(email) = lower($1) ORDER BY id LIMIT 1 FOR UPDATE",
    [email],
  );
  return rows[0];
}

/** GitLab's Uniquify: `name`, else `name1`, `name2`, ... the first neither taken nor reserved. */
async function uniqueUsername(tx: Queryable, base: string): Promise<string> {
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}${n}`;
    if (!isReservedUsername(candidate) && !(await findUserByUsername(tx, candidate))) return candidate;
  }
}
