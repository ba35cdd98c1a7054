import { forbidden, notFound, planFeatures, requireSignedIn, type Queryable } from "@canopy/kit";
import type { common, groups, pushRules } from "@canopy/protos";
import { abilities } from "../domain/access";
import type { Deps } from "../deps";
import { findPushRule, type PushRuleRow } from "../store/push-rules";
import { resolveGroup, type VisibleGroup } from "./groups";

/** What every push-rule call names: who, which group, and whether a licence-gated key was sent. */
export interface PushRuleCall {
  actor?: common.Actor;
  group?: groups.GroupRef;
  gatedKeysSent: boolean;
}

/**
 * GitLab's checks before any push-rule route (ee/lib/api/group_push_rule.rb), in its order: the
 * group is visible (404 "Group Not Found"), the caller may change push rules (Maintainer and up, or
 * an administrator) on a plan that has them (otherwise a bare 404, never 403), and a licence-gated
 * key, if named at all, is licensed (403 even when its value is false).
 */
export async function authorizePushRules(
  deps: Deps,
  req: PushRuleCall,
  db: Queryable = deps.pool,
): Promise<VisibleGroup & { actor: common.Actor }> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveGroup(deps, actor, req.group, db);
  const tier = planFeatures(deps.config.CANOPY_PLAN);
  const may = abilities(found.access, { subgroupCreationLevel: found.row.subgroup_creation_level });
  if (!tier.pushRules || !may.managePushRules) throw notFound();
  if (req.gatedKeysSent && !tier.ultimatePushRuleKeys) throw forbidden();
  return { ...found, actor };
}

/** The rule as the contract carries it: unset regexes absent, a null fallback key read as false. */
export const toPushRule = (r: PushRuleRow): pushRules.PushRule => ({
  id: r.id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  commitMessageRegex: r.commit_message_regex ?? undefined,
  commitMessageNegativeRegex: r.commit_message_negative_regex ?? undefined,
  branchNameRegex: r.branch_name_regex ?? undefined,
  authorEmailRegex: r.author_email_regex ?? undefined,
  fileNameRegex: r.file_name_regex ?? undefined,
  denyDeleteTag: r.deny_delete_tag,
  memberCheck: r.member_check,
  preventSecrets: r.prevent_secrets,
  maxFileSize: r.max_file_size,
  // No instance-level rule to fall back to: null means off (see domain/push-rules.ts).
  commitCommitterCheck: r.commit_committer_check ?? false,
  commitCommitterNameCheck: r.commit_committer_name_check ?? false,
  rejectUnsignedCommits: r.reject_unsigned_commits ?? false,
  rejectNonDcoCommits: r.reject_non_dco_commits ?? false,
});

/** GET /groups/:id/push_rule: the rule, or a bare 404 when the group has none. */
export async function getPushRule(
  deps: Deps,
  req: pushRules.GetPushRuleRequest,
): Promise<pushRules.PushRule> {
  const { row } = await authorizePushRules(deps, req);
  const rule = await findPushRule(deps.pool, row.id);
  if (!rule) throw notFound();
  return toPushRule(rule);
}
