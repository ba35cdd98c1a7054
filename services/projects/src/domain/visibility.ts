import { lowestVisibleLevel, type VisibilityViewer } from "@canopy/kit";

/*
 * Who may read a project. The visibility levels themselves are GitLab's, the same for groups: the
 * kit's gitlab/visibility.ts.
 */

/** GitLab's read_project: administrators, a visibility that reaches the viewer, or any access (Guest+). */
export const canReadProject = (visibilityLevel: number, viewer: VisibilityViewer, access: number) =>
  viewer.admin || visibilityLevel >= lowestVisibleLevel(viewer) || access > 0;
