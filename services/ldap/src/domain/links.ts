import { ACCESS_LEVELS, MINIMAL_ACCESS } from "@canopy/kit";
import { isValidLdapFilter } from "./ldap-filter";

/**
 * GitLab's LdapGroupLink model rules (ee/app/models/ldap_group_link.rb), without I/O. A failed save
 * answers 409 with the first full message (`render_api_error!(errors.full_messages.first, 409)`).
 */

/** `group_access` values the API takes (`Gitlab::Access.values_with_minimal_access`, Canopy's levels). */
export const LINK_ACCESS_LEVELS: readonly number[] = [MINIMAL_ACCESS, ...ACCESS_LEVELS];

export interface LinkInput {
  cn: string | null;
  filter: string | null;
  groupAccess: number;
  provider: string;
}

/** Blank cn and filter are turned into null before validation (the model's `nullify`). */
export const blankToNull = (v: string | undefined | null) =>
  v === undefined || v === null || !v.trim() ? null : v;

/**
 * The model's full messages in its order, uniqueness aside (the store checks it under a lock):
 * presence (one of cn, filter; provider; group access), lengths, then the filter's syntax.
 */
export function linkErrors(l: LinkInput): string[] {
  const errors: string[] = [];
  if (l.cn === null && l.filter === null) errors.push("Either LDAP group cn or LDAP user filter is required");
  if (l.cn !== null && l.filter !== null)
    errors.push("Only one of LDAP group cn or LDAP user filter is allowed");
  if (!l.provider.trim()) errors.push("Provider can't be blank");
  if (!LINK_ACCESS_LEVELS.includes(l.groupAccess)) errors.push("Group access is not included in the list");
  if (l.cn !== null && l.cn.length > 255) errors.push("Cn is too long (maximum is 255 characters)");
  if (l.provider.length > 255) errors.push("Provider is too long (maximum is 255 characters)");
  if (l.filter !== null && l.filter.length > 8192)
    errors.push("Filter is too long (maximum is 8192 characters)");
  else if (l.filter !== null && !isValidLdapFilter(l.filter)) errors.push("Filter is invalid");
  return errors;
}

/** The message of a link that exists already under the same group and provider. */
export const takenMessage = (l: LinkInput) =>
  l.cn !== null ? "Cn has already been taken" : "Filter has already been taken";
