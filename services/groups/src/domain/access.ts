import { MAINTAINER, OWNER } from "@canopy/kit";

/** project_creation_level: stored 0..2, answered as GitLab's words. */
export const PROJECT_CREATION_LEVELS = ["noone", "maintainer", "developer"] as const;
/** subgroup_creation_level: stored 0..1. */
export const SUBGROUP_CREATION_LEVELS = ["owner", "maintainer"] as const;

/**
 * What a caller may do with a group, from their effective access (GitLab app/policies/group_policy.rb).
 * `read` is decided separately (visibility); these are the abilities checked after it.
 */
export function abilities(access: number, group: { subgroupCreationLevel: number }) {
  const owner = access >= OWNER;
  return {
    /** admin_group, admin_group_member, remove_group, change_visibility_level. */
    admin: owner,
    createSubgroup: owner || (access >= MAINTAINER && group.subgroupCreationLevel === 1),
    /** change_push_rules: Maintainer and up. */
    managePushRules: access >= MAINTAINER,
  };
}
