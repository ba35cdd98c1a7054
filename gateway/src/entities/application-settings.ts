import type { settings } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso } from "./time";

/**
 * GitLab's ApplicationSetting entity (lib/api/entities/application_setting.rb) for the settings
 * Canopy keeps, with the legacy names GitLab still exposes beside the current ones.
 */
export const applicationSettingsEntity = (
  s: settings.ApplicationSettings,
): z.infer<typeof schemas.ApplicationSettings> => ({
  id: 1,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
  allow_local_requests_from_web_hooks_and_services: s.allowLocalRequestsFromWebHooksAndServices,
  outbound_local_requests_whitelist: s.outboundLocalRequestsWhitelist,
  dns_rebinding_protection_enabled: s.dnsRebindingProtectionEnabled,
  deny_all_requests_except_allowed: s.denyAllRequestsExceptAllowed,
  deletion_adjourned_period: s.deletionAdjournedPeriod,
  default_group_visibility: s.defaultGroupVisibility,
  default_project_visibility: s.defaultProjectVisibility,
  allow_group_owners_to_manage_ldap: s.allowGroupOwnersToManageLdap,
  password_authentication_enabled_for_web: s.passwordAuthenticationEnabledForWeb,
  require_two_factor_authentication: s.requireTwoFactorAuthentication,
  two_factor_grace_period: s.twoFactorGracePeriod,
  signup_enabled: s.signupEnabled,
  // Legacy names (GitLab: "support legacy names, can be removed in v5").
  password_authentication_enabled: s.passwordAuthenticationEnabledForWeb,
  signin_enabled: s.passwordAuthenticationEnabledForWeb,
  allow_local_requests_from_hooks_and_services: s.allowLocalRequestsFromWebHooksAndServices,
});
