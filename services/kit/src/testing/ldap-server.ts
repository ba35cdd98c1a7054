import { parseLdapServers, type LdapServer } from "../ldap/config";
import type { Slapd } from "./slapd";

/** `CANOPY_LDAP_SERVERS` for servers keyed by id, e.g. `{ main: slapd.serverConfig() }`. */
export const ldapServersEnv = (servers: Record<string, Record<string, unknown>>) => JSON.stringify(servers);

/** The parsed server (provider `ldap<id>`) for a slapd, as a service would load it; throws on problems. */
export function ldapServerFor(
  slapd: Slapd,
  overrides: Record<string, unknown> = {},
  id = "main",
): LdapServer {
  const { servers, problems } = parseLdapServers(ldapServersEnv({ [id]: slapd.serverConfig(overrides) }));
  if (problems.length) throw new Error(`invalid test LDAP configuration: ${problems.join("; ")}`);
  return servers[0]!;
}
