import { invalid, recordEvent, requireAdmin, withTransaction } from "@canopy/kit";
import { AUTH_EVENTS, type common, type settings } from "@canopy/protos";
import { validateSettingsChanges } from "../domain/application-settings";
import type { Deps } from "../deps";
import { mirrorSettings } from "./mirror-settings";
import * as store from "../store/application-settings";

const columnsOf = (c: settings.ApplicationSettingsChanges): store.SettingsColumns => ({
  allow_local_requests_from_web_hooks_and_services: c.allowLocalRequestsFromWebHooksAndServices,
  outbound_local_requests_whitelist: c.outboundLocalRequestsWhitelist?.values,
  dns_rebinding_protection_enabled: c.dnsRebindingProtectionEnabled,
  deny_all_requests_except_allowed: c.denyAllRequestsExceptAllowed,
  deletion_adjourned_period: c.deletionAdjournedPeriod,
  default_group_visibility: c.defaultGroupVisibility,
  default_project_visibility: c.defaultProjectVisibility,
  allow_group_owners_to_manage_ldap: c.allowGroupOwnersToManageLdap,
  password_authentication_enabled_for_web: c.passwordAuthenticationEnabledForWeb,
  require_two_factor_authentication: c.requireTwoFactorAuthentication,
  two_factor_grace_period: c.twoFactorGracePeriod,
  signup_enabled: c.signupEnabled,
});

/**
 * Applies a change (administrators only): validates all of it first, then writes the row and
 * records the whole new snapshot as an event in one transaction (the kit publishes it after
 * commit); then the snapshot mirrored into the KV bucket that other services read.
 */
export async function updateApplicationSettings(
  deps: Deps,
  actor: common.Actor | undefined,
  changes: settings.ApplicationSettingsChanges,
): Promise<settings.ApplicationSettings> {
  requireAdmin(actor);
  const errors = validateSettingsChanges(changes);
  if (Object.keys(errors).length) throw invalid(errors);
  const snapshot = await withTransaction(deps.pool, async (tx) => {
    const updated = store.toSettings(await store.updateSettings(tx, columnsOf(changes)));
    await recordEvent(tx, AUTH_EVENTS.applicationSettingsUpdated, { settings: updated }, actor);
    return updated;
  });
  // The change is committed whatever happens now; a failed mirror is repaired by the periodic pass.
  await mirrorSettings(deps).catch((err) => deps.log.warn({ err }, "settings mirror failed"));
  return snapshot;
}
