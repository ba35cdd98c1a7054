import * as events from "../gen/canopy/ldap/v1/events";

/** The ldap context's events and commands, under `canopy.ldap.` (shape: the kit's `EventKind`). */
const kind = <T>(
  leaf: string,
  type: string,
  codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T },
) => ({
  subject: `canopy.ldap.${leaf}`,
  type: `canopy.ldap.v1.${type}`,
  codec,
});

export const LDAP_EVENTS = {
  /** A command to the groups service (it owns memberships): the desired LDAP members of a group. */
  desiredMembers: kind("sync.desired_members", "DesiredLdapMembers", events.DesiredLdapMembers),
} as const;

/** Every subject the ldap context publishes on. */
export const LDAP_SUBJECTS = "canopy.ldap.>";
