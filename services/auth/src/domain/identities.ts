import { normalizeDn } from "@canopy/kit";

/** GitLab's `Gitlab::Auth::OAuth::Provider.ldap_provider?`: every LDAP provider is `ldap<id>`. */
export const isLdapProvider = (provider: string) => provider.startsWith("ldap");

/**
 * An extern_uid as it is stored and compared: an LDAP identity's is the normalized DN (GitLab's
 * `Identity.normalize_uid`), so `UID=Alice, OU=People` and `uid=alice,ou=people` are one identity.
 */
export const normalizeExternUid = (provider: string, externUid: string) =>
  isLdapProvider(provider) ? normalizeDn(externUid.trim()) : externUid.trim();

/** The API's identity parameters: both or neither; errors keyed as Rails keys an identity's. */
export function identityErrors(provider: string | undefined, externUid: string | undefined) {
  const errors: Record<string, string[]> = {};
  if (provider === undefined && externUid === undefined) return errors;
  if (!provider?.trim()) errors["identities.provider"] = ["can't be blank"];
  else if (provider.length > 255) errors["identities.provider"] = ["is too long (maximum is 255 characters)"];
  if (!externUid?.trim()) errors["identities.extern_uid"] = ["can't be blank"];
  else if (externUid.length > 2048)
    errors["identities.extern_uid"] = ["is too long (maximum is 2048 characters)"];
  return errors;
}
