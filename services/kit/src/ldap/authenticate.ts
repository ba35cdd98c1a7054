import type { Logger } from "../logger";
import type { LdapServer } from "./config";
import { connectToLdap, connectionError, isResultCodeError } from "./connection";
import { withDirectory } from "./directory";
import type { LdapPerson } from "./person";

/**
 * Checks a login and password against one server, as GitLab's LDAP sign-in does (omniauth-ldap's
 * `bind_as`): find the person by `uid` with `user_filter` applied, as the service account, then bind
 * as that person's DN with the password on a connection of its own.
 *
 * Undefined for every kind of refusal (no such person, filtered out, wrong password, an empty
 * password, which LDAP would take as an anonymous bind and accept), so callers cannot tell them
 * apart; throws LdapConnectionError when the directory cannot be used.
 */
export async function authenticateWithDirectory(
  server: LdapServer,
  login: string,
  password: string,
  log?: Logger,
): Promise<LdapPerson | undefined> {
  if (!login.trim() || !password) return undefined;
  const person = await withDirectory(server, (directory) => directory.findPersonByUid(login), log);
  if (!person) return undefined;
  return (await bindsAs(server, person.rawDn, password)) ? person : undefined;
}

/** Whether `dn` and `password` bind; false when the server refuses, thrown when it cannot be reached. */
export async function bindsAs(server: LdapServer, dn: string, password: string): Promise<boolean> {
  if (!dn || !password) return false;
  const client = await connectToLdap(server);
  try {
    await client.bind(dn, password);
    return true;
  } catch (e) {
    if (isResultCodeError(e)) return false;
    throw connectionError(server, e);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
