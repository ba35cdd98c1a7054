import { planFeatures, type Plan } from "@canopy/kit";
import type { ldap } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";

/**
 * GitLab's LdapGroupLink entity (ee/lib/api/entities/ldap_group_link.rb): no id; `cn` null for a
 * filter link (python-gitlab reads `cn` first, then `filter`, to delete a link); `filter` only on a
 * plan with filter links, null for a cn link.
 */
export function ldapGroupLinkEntity(l: ldap.GroupLink, plan: Plan): z.infer<typeof schemas.LdapGroupLink> {
  return {
    cn: l.cn ?? null,
    group_access: l.groupAccess,
    provider: l.provider,
    ...(planFeatures(plan).ldapFilterLinks ? { filter: l.filter ?? null } : {}),
  };
}
