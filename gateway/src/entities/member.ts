import type { groupMembers } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso, orNull } from "./time";

const base = (url: string) => url.replace(/\/+$/, "");

/** GitLab's UserBasic of a member or of who added them, from the groups service's copy. */
export const memberUserBasic = (
  u: groupMembers.MemberUser,
  externalUrl: string,
): z.infer<typeof schemas.MemberUser> => ({
  id: u.id,
  username: u.username,
  name: u.name,
  // The groups service copies the auth service's states as they are.
  state: (u.state || "active") as z.infer<typeof schemas.userState>,
  locked: false,
  avatar_url: u.avatarUrl || null,
  web_url: `${base(externalUrl)}/${encodeURIComponent(u.username)}`,
});

/**
 * GitLab's Member entity (lib/api/entities/member.rb with EE's additions): the user's UserBasic
 * merged at the top level, then the membership. `created_by` is left out when unknown; `email` is
 * there only when the service gave it (to administrators).
 */
export function memberEntity(
  m: Pick<groupMembers.Member, "user" | "accessLevel" | "createdAt" | "createdBy" | "expiresAt"> & {
    ldap?: boolean;
  },
  externalUrl: string,
): z.infer<typeof schemas.Member> {
  return {
    ...memberUserBasic(m.user!, externalUrl),
    access_level: m.accessLevel,
    created_at: iso(m.createdAt),
    ...(m.createdBy ? { created_by: memberUserBasic(m.createdBy, externalUrl) } : {}),
    expires_at: orNull(m.expiresAt),
    ...(m.user!.email !== undefined ? { email: m.user!.email } : {}),
    // EE: `override` on a group membership managed by LDAP (Canopy has no manual override: false).
    ...(m.ldap ? { override: false } : {}),
    membership_state: "active",
  };
}
