/*
 * GitLab's visibility levels (lib/gitlab/visibility_level.rb), the same for groups and projects:
 * stored as the level, answered as the name. Who may read a group or a project (GitLab's read_group,
 * read_project) also depends on access, which each service decides for its own kind.
 */

export const VisibilityLevel = { PRIVATE: 0, INTERNAL: 10, PUBLIC: 20 } as const;

export const VISIBILITY_NAMES = ["private", "internal", "public"] as const;
export type VisibilityName = (typeof VISIBILITY_NAMES)[number];

const LEVELS: Record<VisibilityName, number> = {
  private: VisibilityLevel.PRIVATE,
  internal: VisibilityLevel.INTERNAL,
  public: VisibilityLevel.PUBLIC,
};

export const visibilityLevelOf = (name: VisibilityName): number => LEVELS[name];
export const visibilityNameOf = (level: number): VisibilityName =>
  level >= VisibilityLevel.PUBLIC ? "public" : level >= VisibilityLevel.INTERNAL ? "internal" : "private";

export const isVisibilityName = (s: string): s is VisibilityName =>
  (VISIBILITY_NAMES as readonly string[]).includes(s);

/** Who is looking, as far as visibility cares. */
export interface VisibilityViewer {
  /** 0 for anonymous callers. */
  userId: number;
  admin: boolean;
  external: boolean;
}

/**
 * The lowest visibility level the viewer sees without any membership or access (`levels_for_user`):
 * anonymous and external users public only; other users internal and public; administrators
 * everything.
 */
export function lowestVisibleLevel(viewer: VisibilityViewer): number {
  if (viewer.admin) return VisibilityLevel.PRIVATE;
  if (!viewer.userId || viewer.external) return VisibilityLevel.PUBLIC;
  return VisibilityLevel.INTERNAL;
}
