/** GitLab's visibility levels (lib/gitlab/visibility_level.rb). */
export const PRIVATE = 0;
export const INTERNAL = 10;
export const PUBLIC = 20;

export const VISIBILITY_NAMES = ["private", "internal", "public"] as const;
export type VisibilityName = (typeof VISIBILITY_NAMES)[number];

const LEVELS: Record<VisibilityName, number> = { private: PRIVATE, internal: INTERNAL, public: PUBLIC };

export const levelOf = (name: VisibilityName): number => LEVELS[name];
export const nameOf = (level: number): VisibilityName =>
  level >= PUBLIC ? "public" : level >= INTERNAL ? "internal" : "private";
export const isVisibilityName = (s: string): s is VisibilityName =>
  (VISIBILITY_NAMES as readonly string[]).includes(s);

/** Who is looking, as far as visibility cares. */
export interface Viewer {
  /** 0 for anonymous callers. */
  userId: number;
  admin: boolean;
  external: boolean;
}

/**
 * The lowest visibility level the viewer sees without any access (`levels_for_user`): anonymous
 * and external users public only; other users internal and public; administrators everything.
 */
export function lowestVisibleLevel(viewer: Viewer): number {
  if (viewer.admin) return PRIVATE;
  if (!viewer.userId || viewer.external) return PUBLIC;
  return INTERNAL;
}

/** GitLab's read_project: administrators, a visibility that reaches the viewer, or any access (Guest+). */
export const canReadProject = (visibilityLevel: number, viewer: Viewer, access: number) =>
  viewer.admin || visibilityLevel >= lowestVisibleLevel(viewer) || access > 0;
