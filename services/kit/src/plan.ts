import { z } from "zod";

/**
 * GitLab's tiers, one per deployment (`CANOPY_PLAN`, default ultimate), and what each unlocks where
 * GitLab gates it (EE licensed features). Services decide with it; the gateway shapes answers with it
 * (fields a tier does not have are left out, as GitLab leaves them out).
 */
export const PLANS = ["free", "premium", "ultimate"] as const;
export type Plan = (typeof PLANS)[number];

export const planConfig = {
  CANOPY_PLAN: z.enum(PLANS).default("ultimate"),
};

const PREMIUM = new Set<Plan>(["premium", "ultimate"]);

export const planFeatures = (plan: Plan) => ({
  /** Delayed deletion: DELETE marks, restore, marked_for_deletion_on. */
  adjournedDeletion: PREMIUM.has(plan),
  pushRules: PREMIUM.has(plan),
  /** Access level 5. */
  minimalAccess: PREMIUM.has(plan),
  /** shared_runners_minutes_limit, extra_shared_runners_minutes_limit, membership_lock, ... */
  premiumGroupFields: PREMIUM.has(plan),
  /** The push-rule keys GitLab licenses separately (commit_committer_check, reject_unsigned_commits, ...). */
  ultimatePushRuleKeys: plan === "ultimate",
  /** file_template_project_id (custom project templates). */
  fileTemplates: PREMIUM.has(plan),
  /** Group webhooks. */
  groupWebhooks: PREMIUM.has(plan),
  /** LDAP group sync (GitLab's licence `ldap_group_sync`): cn links are synced, POST /ldap_sync. */
  ldapGroupSync: PREMIUM.has(plan),
  /** LDAP filter links (GitLab's licence `ldap_group_sync_filter`). */
  ldapFilterLinks: PREMIUM.has(plan),
  /** Auditor users (licence `auditor_user`): UserWithAdmin's is_auditor. */
  auditorUsers: PREMIUM.has(plan),
  /** Group SAML (licence `group_saml`): UserWithAdmin's provisioned_by_group_id. */
  groupSaml: PREMIUM.has(plan),
});

export type PlanFeatures = ReturnType<typeof planFeatures>;
