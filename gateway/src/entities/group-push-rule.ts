import { planFeatures, type Plan } from "@canopy/kit";
import type { pushRules } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso } from "./time";

/**
 * GitLab's GroupPushRule entity (ee/lib/ee/api/entities/group_push_rule.rb), keys in its order.
 * The four licence-gated keys are left out entirely below ultimate, as GitLab leaves them out.
 * There is no group_id.
 */
export function groupPushRuleEntity(
  r: pushRules.PushRule,
  plan: Plan,
): z.infer<typeof schemas.GroupPushRule> {
  return {
    id: r.id,
    created_at: iso(r.createdAt),
    commit_message_regex: r.commitMessageRegex ?? null,
    commit_message_negative_regex: r.commitMessageNegativeRegex ?? null,
    branch_name_regex: r.branchNameRegex ?? null,
    author_email_regex: r.authorEmailRegex ?? null,
    file_name_regex: r.fileNameRegex ?? null,
    deny_delete_tag: r.denyDeleteTag,
    member_check: r.memberCheck,
    prevent_secrets: r.preventSecrets,
    max_file_size: r.maxFileSize,
    ...(planFeatures(plan).ultimatePushRuleKeys
      ? {
          commit_committer_check: r.commitCommitterCheck,
          commit_committer_name_check: r.commitCommitterNameCheck,
          reject_unsigned_commits: r.rejectUnsignedCommits,
          reject_non_dco_commits: r.rejectNonDcoCommits,
        }
      : {}),
  };
}
