import type { settings } from "@canopy/protos";

/**
 * GitLab's model validations for the application settings Canopy keeps
 * (app/models/application_setting.rb, app/validators/qualified_domain_array_validator.rb),
 * with Rails' messages. Pure: the change is checked before anything is written.
 */

export const VISIBILITIES = ["private", "internal", "public"] as const;
const MAX_ALLOWLIST_ENTRIES = 1_000;
const MAX_ALLOWLIST_ENTRY_LENGTH = 255;
const HTML_TAG = /<[a-z!/?][^>]*>/i;
const MAX_INT = 2_147_483_647;

type FieldErrors = Record<string, string[]>;

function integerErrors(value: number, min: number, max: number, minMessage: string): string[] {
  if (!Number.isInteger(value)) return ["must be an integer"];
  if (value < min) return [minMessage];
  if (value > max) return [`must be less than or equal to ${max}`];
  return [];
}

/** Rails' QualifiedDomainArrayValidator plus the 1000-entry limit; entries are not resolved here. */
export function allowlistErrors(entries: string[]): string[] {
  const errors: string[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES) errors.push("is too long (maximum is 1000 entries)");
  if (entries.some((e) => e.length > MAX_ALLOWLIST_ENTRY_LENGTH))
    errors.push("entries cannot be larger than 255 characters");
  // eslint-disable-next-line no-control-regex
  if (entries.some((e) => /[^\x00-\x7f]/.test(e))) errors.push("unicode domains should use IDNA encoding");
  if (entries.some((e) => HTML_TAG.test(e))) errors.push("entries cannot contain HTML tags");
  return errors;
}

/** Field errors of a change, keyed by attribute; empty when the change may be saved. */
export function validateSettingsChanges(c: settings.ApplicationSettingsChanges): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, messages: string[]) => {
    if (messages.length) errors[field] = messages;
  };
  if (c.outboundLocalRequestsWhitelist)
    add("outbound_local_requests_whitelist", allowlistErrors(c.outboundLocalRequestsWhitelist.values));
  if (c.deletionAdjournedPeriod !== undefined)
    add(
      "deletion_adjourned_period",
      integerErrors(c.deletionAdjournedPeriod, 1, 90, "must be greater than 0"),
    );
  if (c.twoFactorGracePeriod !== undefined)
    add(
      "two_factor_grace_period",
      integerErrors(c.twoFactorGracePeriod, 0, MAX_INT, "must be greater than or equal to 0"),
    );
  for (const [field, value] of [
    ["default_group_visibility", c.defaultGroupVisibility],
    ["default_project_visibility", c.defaultProjectVisibility],
  ] as const) {
    if (value !== undefined && !(VISIBILITIES as readonly string[]).includes(value))
      add(field, ["is not included in the list"]);
  }
  return errors;
}
