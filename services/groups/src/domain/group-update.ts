import { type FieldErrors, type PlanFeatures, visibilityNameOf } from "@canopy/kit";
import type { groups } from "@canopy/protos";
import type { GroupSettings } from "./group-attributes";

/**
 * The rules of PUT /groups/:id that need no I/O (GitLab app/services/groups/update_service.rb and
 * the visibility validations of app/models/group.rb, reference §2.6 and §4.4).
 */

/**
 * The attributes this caller may change on this group, and whether they sent one they may not.
 * Higher-tier keys are ignored on a plan without them (GitLab CE does not declare them); the CI
 * minutes limits are for administrators only (403, as EE's API answers);
 * prevent_sharing_groups_outside_hierarchy is a top-level setting, silently ignored on subgroups.
 */
export function applicableAttributes(
  a: groups.GroupAttributes,
  ctx: { tier: PlanFeatures; topLevel: boolean; admin: boolean },
): { attributes: groups.GroupAttributes; forbidden: boolean } {
  const out: groups.GroupAttributes = { ...a };
  const minutes = a.sharedRunnersMinutesLimit !== undefined || a.extraSharedRunnersMinutesLimit !== undefined;
  if (!ctx.tier.premiumGroupFields) {
    out.sharedRunnersMinutesLimit = undefined;
    out.extraSharedRunnersMinutesLimit = undefined;
    out.membershipLock = undefined;
    out.preventForkingOutsideGroup = undefined;
  }
  if (!ctx.tier.fileTemplates) out.fileTemplateProjectId = undefined;
  if (!ctx.topLevel) out.preventSharingGroupsOutsideHierarchy = undefined;
  return { attributes: out, forbidden: minutes && ctx.tier.premiumGroupFields && !ctx.admin };
}

/**
 * Visibility against the parent (not above it), the projects directly in the group and the direct
 * subgroups (not below any of them), in GitLab's order of validations.
 */
export function visibilityErrors(
  level: number,
  parentLevel: number | undefined,
  highestChild: number | undefined,
  errors: FieldErrors = {},
  highestProject?: number,
): FieldErrors {
  const add = (m: string) => (errors.visibility_level ??= []).push(m);
  if (parentLevel !== undefined && level > parentLevel)
    add(
      `${visibilityNameOf(level)} is not allowed since the parent group has a ${visibilityNameOf(parentLevel)} visibility.`,
    );
  if (highestProject !== undefined && level < highestProject)
    add(
      `${visibilityNameOf(level)} is not allowed since this group contains projects with higher visibility.`,
    );
  if (highestChild !== undefined && level < highestChild)
    add(`${visibilityNameOf(level)} is not allowed since there are sub-groups with higher visibility.`);
  return errors;
}

export const SHARE_LOCK_REFUSED =
  'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group';

/**
 * change_share_with_group_lock: when the parent has the lock on, only an owner of the parent (or an
 * administrator) may change the subgroup's. Checked only when the value changes.
 */
export function shareLockRefused(
  wanted: boolean | undefined,
  current: boolean,
  parent: { locked: boolean; callerOwnsIt: boolean } | undefined,
): boolean {
  if (wanted === undefined || wanted === current) return false;
  return Boolean(parent?.locked && !parent.callerOwnsIt);
}

const UNOVERRIDABLE = "disabled_and_unoverridable";

/**
 * Shared runners under a parent that disabled them without override: the subgroup may not enable
 * them nor allow its own descendants to override. GitLab answers through its UpdateSharedRunnersService,
 * whose message lands under `update_shared_runners`.
 */
export function sharedRunnersError(wanted: string | undefined, parentSetting: string | undefined) {
  if (wanted === undefined || parentSetting !== UNOVERRIDABLE || wanted === UNOVERRIDABLE) return undefined;
  return wanted === "enabled"
    ? "Shared runners enabled cannot be enabled because parent group has shared Runners disabled"
    : "Allow descendants override disabled shared runners cannot be enabled because parent group does not allow it";
}

/** API names of the settings whose stored value differs (GroupUpdated's `changed`). */
const API_NAMES: Partial<Record<keyof GroupSettings, string>> = { visibility_level: "visibility" };

export function changedSettings(
  before: Record<string, unknown>,
  settings: GroupSettings,
): { changed: string[]; columns: GroupSettings } {
  const columns: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const [column, value] of Object.entries(settings)) {
    if (value === undefined || before[column] === value) continue;
    columns[column] = value;
    changed.push(API_NAMES[column as keyof GroupSettings] ?? column);
  }
  return { changed, columns: columns as GroupSettings };
}
