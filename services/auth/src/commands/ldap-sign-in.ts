import {
  authenticateWithDirectory,
  LdapConnectionError,
  type LdapPerson,
  type LdapServer,
} from "@canopy/kit";
import { oauth } from "@canopy/protos";
import { isLdapProvider } from "../domain/identities";
import type { Deps } from "../deps";
import { listIdentities } from "../store/identities";
import { findUserByLogin, toUser, type UserRow } from "../store/users";
import { accessAtSignIn } from "./ldap-access";
import { userOfLdapPerson } from "./ldap-users";
import { inactiveRefusal, signedIn, verifyPassword, type SignInOptions } from "./sign-in";

const INVALID = { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID };
type SignInAnswer = Awaited<ReturnType<typeof verifyPassword>>;

/**
 * Sign-in through one LDAP server (the page's LDAP tab, GitLab's /users/auth/ldapmain/callback):
 * the directory checks the password, then the person's Canopy user is found or, at the first
 * sign-in, created (ldap-users.ts). Each sign-in asks the directory again, so a person who left it,
 * or no longer matches `user_filter`, is refused. Every refusal, an unreachable directory included,
 * is the one INVALID answer; the directory's own lockout policy applies, not Canopy's.
 *
 * Then GitLab's `Access.allowed?` (ldap-access.ts): a user the directory had blocked is active again
 * and signs in; one disabled in Active Directory becomes ldap_blocked and is refused.
 */
export async function signInWithLdap(
  deps: Deps,
  provider: string,
  login: string,
  password: string,
  options: SignInOptions = {},
): Promise<SignInAnswer> {
  const server = deps.config.CANOPY_LDAP_SERVERS.find((s) => s.provider === provider);
  if (!server) return INVALID;
  const person = await personWithPassword(deps, server, login, password);
  if (!person) return INVALID;
  const access = await accessAtSignIn(deps, server, person, await userOfLdapPerson(deps, person, server));
  if (!access?.user) return INVALID;
  if (!access.allowed) return { refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_BLOCKED };
  return signedInAs(deps, access.user, options);
}

async function personWithPassword(
  deps: Deps,
  server: LdapServer,
  login: string,
  password: string,
): Promise<LdapPerson | undefined> {
  try {
    return await authenticateWithDirectory(server, login, password, deps.log);
  } catch (e) {
    if (!(e instanceof LdapConnectionError)) throw e;
    deps.log.warn(
      { provider: server.provider, err: e.message },
      "LDAP sign-in failed: directory unavailable",
    );
    return undefined;
  }
}

async function signedInAs(deps: Deps, user: UserRow, options: SignInOptions): Promise<SignInAnswer> {
  const comesBack = options.reactivate === true && user.state === "deactivated";
  if (user.state !== "active" && !comesBack) return { refusal: inactiveRefusal(user) };
  // The code step (verifySignInCode) completes a two-factor user's sign-in.
  if (user.two_factor_enabled)
    return { user: toUser(user), refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED };
  return {
    user: await signedIn(deps, user, options),
    refusal: oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED,
  };
}

/**
 * A login and password from anywhere that takes both without naming a provider (the password
 * grant), as GitLab's `Gitlab::Auth.find_with_user_password` decides: a user with an LDAP identity
 * signs in through that directory only, never with a local password; another user with their local
 * password; a login nobody has, through each LDAP server in turn (beyond GitLab, the first success
 * creates the user, as the page's sign-in does). Without LDAP, exactly verifyPassword.
 */
export async function verifyAnyPassword(deps: Deps, login: string, password: string): Promise<SignInAnswer> {
  const servers = deps.config.CANOPY_LDAP_SERVERS;
  if (!servers.length) return verifyPassword(deps, login, password);
  const user = login ? await findUserByLogin(deps.pool, login) : undefined;
  const ldapProviders = user
    ? (await listIdentities(deps.pool, user.id)).map((i) => i.provider).filter(isLdapProvider)
    : servers.map((s) => s.provider);
  if (user && !ldapProviders.length) return verifyPassword(deps, login, password);
  for (const provider of ldapProviders) {
    const answer = await signInWithLdap(deps, provider, login, password);
    if (answer.refusal !== oauth.SignInRefusal.SIGN_IN_REFUSAL_INVALID) return answer;
  }
  return INVALID;
}
