/*
 * GitLab's access levels (lib/gitlab/access.rb), the same for group and project memberships, shares
 * and `min_access_level`. What each level may do is decided per kind of resource (GitLab's group and
 * project policies): each service's domain/access.ts.
 */

export const NO_ACCESS = 0;
export const MINIMAL_ACCESS = 5;
export const GUEST = 10;
export const REPORTER = 20;
export const DEVELOPER = 30;
export const MAINTAINER = 40;
export const OWNER = 50;

/** Levels a member, a share or `min_access_level` may take (`Gitlab::Access.all_values`). */
export const ACCESS_LEVELS = [GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER] as const;

/** A level's role name, as GitLab's messages print it (`Gitlab::Access.human_access`). */
export const ACCESS_LEVEL_NAMES: Record<number, string> = {
  [MINIMAL_ACCESS]: "Minimal Access",
  [GUEST]: "Guest",
  [REPORTER]: "Reporter",
  [DEVELOPER]: "Developer",
  [MAINTAINER]: "Maintainer",
  [OWNER]: "Owner",
};
