/**
 * Settings a tree imposes on the groups below its top (GitLab app/models/group.rb,
 * namespace_setting.rb, Groups::TransferService and Groups::UpdateSharedRunnersService). Pure rules;
 * the commands apply them under the tree's lock.
 */

/** Group#two_factor_authentication_allowed: a subgroup under a top-level group that forbids it. */
export const TWO_FACTOR_FORBIDDEN = "is forbidden by a top-level group";

/** NamespaceSetting#allow_mfa_for_group: only a top-level group may forbid it to its subgroups. */
export const MFA_SETTING_TOP_LEVEL_ONLY = "is not allowed since the group is not top-level group.";

/** The same rule as a transfer words it (ActiveRecord::RecordInvalid's full message). */
export const TWO_FACTOR_FORBIDDEN_ON_TRANSFER = `Validation failed: Require two factor authentication ${TWO_FACTOR_FORBIDDEN}`;

/** Shared runners settings from the most open to the most closed (Namespace#shared_runners_setting_higher_than?). */
const OPENNESS: Record<string, number> = {
  enabled: 2,
  disabled_with_override: 1,
  disabled_and_overridable: 1,
  disabled_and_unoverridable: 0,
};

/**
 * The shared runners setting a moved group takes under its new parent
 * (TransferService#inherit_group_shared_runners_settings): the parent's when the group's is more
 * open than it, else undefined (the group keeps its own).
 */
export function sharedRunnersUnder(groupSetting: string, parentSetting: string): string | undefined {
  return (OPENNESS[groupSetting] ?? 2) > (OPENNESS[parentSetting] ?? 2) ? parentSetting : undefined;
}

/**
 * What a group's new shared runners setting does to its descendants (UpdateSharedRunnersService):
 * disabled without override closes every one of them; disabled with override, set on a group that
 * had them enabled, turns them off wherever they were on — each such descendant keeps its own
 * "allow override" flag, which an enabled group never has, so it becomes disabled_and_unoverridable.
 * Enabling touches the group alone.
 */
export function sharedRunnersBelow(
  setting: string | undefined,
  wasEnabled: boolean,
): { from: "any" | "enabled"; to: "disabled_and_unoverridable" } | undefined {
  if (setting === "disabled_and_unoverridable") return { from: "any", to: setting };
  if (wasEnabled && (setting === "disabled_with_override" || setting === "disabled_and_overridable"))
    return { from: "enabled", to: "disabled_and_unoverridable" };
  return undefined;
}
