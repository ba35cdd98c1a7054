import type { Queryable } from "@canopy/kit";
import type { settings } from "@canopy/protos";

/** The one row of `application_settings`, column for column. */
export interface SettingsRow {
  version: number;
  allow_local_requests_from_web_hooks_and_services: boolean;
  outbound_local_requests_whitelist: string[];
  dns_rebinding_protection_enabled: boolean;
  deny_all_requests_except_allowed: boolean;
  deletion_adjourned_period: number;
  default_group_visibility: string;
  default_project_visibility: string;
  allow_group_owners_to_manage_ldap: boolean;
  password_authentication_enabled_for_web: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  signup_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

/** Columns a change may set; the version and timestamps are the store's. */
export type SettingsColumns = Partial<Omit<SettingsRow, "version" | "created_at" | "updated_at">>;

const WRITABLE: (keyof SettingsColumns)[] = [
  "allow_local_requests_from_web_hooks_and_services",
  "outbound_local_requests_whitelist",
  "dns_rebinding_protection_enabled",
  "deny_all_requests_except_allowed",
  "deletion_adjourned_period",
  "default_group_visibility",
  "default_project_visibility",
  "allow_group_owners_to_manage_ldap",
  "password_authentication_enabled_for_web",
  "require_two_factor_authentication",
  "two_factor_grace_period",
  "signup_enabled",
];

export const toSettings = (r: SettingsRow): settings.ApplicationSettings => ({
  version: r.version,
  allowLocalRequestsFromWebHooksAndServices: r.allow_local_requests_from_web_hooks_and_services,
  outboundLocalRequestsWhitelist: r.outbound_local_requests_whitelist,
  dnsRebindingProtectionEnabled: r.dns_rebinding_protection_enabled,
  denyAllRequestsExceptAllowed: r.deny_all_requests_except_allowed,
  deletionAdjournedPeriod: r.deletion_adjourned_period,
  defaultGroupVisibility: r.default_group_visibility,
  defaultProjectVisibility: r.default_project_visibility,
  allowGroupOwnersToManageLdap: r.allow_group_owners_to_manage_ldap,
  passwordAuthenticationEnabledForWeb: r.password_authentication_enabled_for_web,
  requireTwoFactorAuthentication: r.require_two_factor_authentication,
  twoFactorGracePeriod: r.two_factor_grace_period,
  signupEnabled: r.signup_enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function findSettings(db: Queryable): Promise<SettingsRow> {
  const { rows } = await db.query<SettingsRow>("SELECT * FROM application_settings");
  return rows[0]!;
}

/**
 * Writes the given columns and moves the version on by one, even when nothing changed, so every
 * accepted update is one new snapshot. The row lock orders concurrent updates: versions never repeat.
 */
export async function updateSettings(db: Queryable, columns: SettingsColumns): Promise<SettingsRow> {
  const names = WRITABLE.filter((c) => columns[c] !== undefined);
  const sets = names.map((c, i) => `${c} = $${i + 1}`);
  const { rows } = await db.query<SettingsRow>(
    `UPDATE application_settings SET ${[...sets, "version = version + 1", "updated_at = now()"].join(", ")}
     RETURNING *`,
    names.map((c) => columns[c]),
  );
  return rows[0]!;
}
