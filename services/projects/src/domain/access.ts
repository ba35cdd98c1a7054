/** GitLab's access levels (lib/gitlab/access.rb). */
export const GUEST = 10;
export const REPORTER = 20;
export const DEVELOPER = 30;
export const MAINTAINER = 40;
export const OWNER = 50;

/** Levels `min_access_level` may take (`Gitlab::Access.all_values`). */
export const ACCESS_LEVELS = [GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER] as const;

/**
 * What a caller may do with a project they can see, from their effective access
 * (GitLab app/policies/project_policy.rb). Administrators are handled by the callers (all of it).
 */
export function projectAbilities(access: number) {
  return {
    /** admin_project: PUT /projects/:id, archive, unarchive. */
    admin: access >= MAINTAINER,
    /** remove_project: DELETE /projects/:id (owners: the group's Owners or the personal namespace's user). */
    remove: access >= OWNER,
    /** change_visibility_level and rename/change path: also Maintainer+ in GitLab (Owner for some). */
    changeVisibility: access >= MAINTAINER,
  };
}

/**
 * Who may create projects in a group: `project_creation_level` noone (0), maintainer (1) or
 * developer (2), the default. The copies do not hold the group's setting yet (the groups events do
 * not carry it), so the default applies: Developer and up.
 */
export const mayCreateInGroup = (access: number) => access >= DEVELOPER;
