import { lowestVisibleLevel, type VisibilityViewer } from "@canopy/kit";

/*
 * Who may read a group. The visibility levels themselves are GitLab's, the same for projects: the
 * kit's gitlab/visibility.ts.
 */

/**
 * GitLab's read_group: the group's visibility reaches the viewer, or they have any access to it
 * (direct, inherited, shared, minimal), or they hold access to something below it, or they are an
 * administrator. Everything else is answered 404, exactly as a group that does not exist.
 */
export function canReadGroup(
  visibilityLevel: number,
  viewer: VisibilityViewer,
  access: { accessLevel: number; below: boolean },
): boolean {
  return (
    viewer.admin || visibilityLevel >= lowestVisibleLevel(viewer) || access.accessLevel > 0 || access.below
  );
}
