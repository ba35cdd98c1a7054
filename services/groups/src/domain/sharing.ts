import { ACCESS_LEVELS } from "@canopy/kit";

/** GitLab's uniqueness message on the link, as Rails' full message (reference §5.2). */
export const ALREADY_SHARED = "Shared group The group has already been shared with this group";

/** Levels a link may grant (`Gitlab::Access.all_values`: Owner included). */
export const isLinkAccessLevel = (level: number): boolean =>
  (ACCESS_LEVELS as readonly number[]).includes(level);

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date as YYYY-MM-DD (a past date is allowed: the link then grants nothing). */
export function isDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

/**
 * GitLab's sharing_allowed?: a root with prevent_sharing_groups_outside_hierarchy admits only
 * invited groups of its own tree (the root itself or below it).
 */
export function sharingAllowed(
  root: { id: number; prevent_sharing_groups_outside_hierarchy: boolean },
  invitedTraversal: number[],
): boolean {
  return !root.prevent_sharing_groups_outside_hierarchy || invitedTraversal[0] === root.id;
}
