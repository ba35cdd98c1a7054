import { DEVELOPER, MAINTAINER, OWNER } from "@canopy/kit";

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

/** A group's `project_creation_level` as stored: nobody, Maintainer and up, Developer and up. */
export const NO_ONE_PROJECT_ACCESS = 0;
export const MAINTAINER_PROJECT_ACCESS = 1;
export const DEVELOPER_MAINTAINER_PROJECT_ACCESS = 2;

/**
 * Who may create projects in a group (GitLab's group policy, create_projects): Developer and up
 * when the group's `project_creation_level` is developer (the default), Maintainer and up when it is
 * maintainer; nobody when it is noone, administrators included (the policy's prevent rule wins over
 * every enable). Administrators otherwise count as Owners (the caller passes OWNER for them).
 */
export function mayCreateInGroup(access: number, projectCreationLevel: number): boolean {
  if (projectCreationLevel === NO_ONE_PROJECT_ACCESS) return false;
  if (projectCreationLevel === MAINTAINER_PROJECT_ACCESS) return access >= MAINTAINER;
  return access >= DEVELOPER;
}
