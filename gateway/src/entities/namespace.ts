import type { Plan } from "@canopy/kit";
import type { namespaces } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";

const base = (url: string) => url.replace(/\/+$/, "");

/**
 * GitLab's Namespace entity (NamespaceBasic + members_count_with_descendants for groups the caller
 * administers, and EE's billing fields for those who administer it on a paid plan). A personal
 * namespace's web_url is the user's page, a group's the group page.
 */
export function namespaceEntity(
  n: namespaces.Namespace,
  s: { externalUrl: string; plan: Plan },
): z.infer<typeof schemas.Namespace> {
  const url = base(s.externalUrl);
  const avatar = n.kind === "group" ? (n.avatarPath ? `${url}${n.avatarPath}` : null) : n.avatarUrl || null;
  return {
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind as "user" | "group",
    full_path: n.fullPath,
    parent_id: n.parentId || null,
    avatar_url: avatar,
    web_url: n.kind === "group" ? `${url}/groups/${n.fullPath}` : `${url}/${n.fullPath}`,
    ...(n.membersCountWithDescendants !== undefined
      ? { members_count_with_descendants: n.membersCountWithDescendants }
      : {}),
    ...(n.billableMembersCount !== undefined
      ? { billable_members_count: n.billableMembersCount, plan: s.plan, trial_ends_on: null, trial: false }
      : {}),
  };
}
