import { z } from "zod";
import type { settings } from "@canopy/protos";
import { applicationSettingsEntity } from "../entities/application-settings";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError } from "../http/errors";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { ApplicationSettings } from "../entities/schemas";

/**
 * The Application settings API (GitLab's lib/api/settings.rb), for the settings Canopy keeps.
 * Administrators only, checked before the parameters as Grape's `before { authenticated_as_admin! }`
 * does (the auth service checks again). Unknown parameters are ignored, as Grape ignores them.
 */

const VISIBILITY = param.oneOf(["private", "internal", "public"]);

/**
 * Grape's CommaSeparatedToArray: `a,b`, `x[]=a&x[]=b` or a JSON array, each item split on commas
 * and trimmed. No count limit here: the service answers GitLab's "maximum is 1000 entries".
 */
const splitItem = (item: unknown) =>
  typeof item === "string" || typeof item === "number"
    ? String(item)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [item];
const hostList = z.preprocess(
  (v) => (typeof v === "string" ? splitItem(v) : Array.isArray(v) ? v.flatMap(splitItem) : v),
  z.array(z.string().refine((s) => !s.includes("\u0000"))),
);

/** Every parameter PUT declares, in GitLab's order; `at_least_one_of` lists them all. */
const PARAMS = {
  allow_local_requests_from_web_hooks_and_services: param.boolean().optional(),
  allow_local_requests_from_hooks_and_services: param.boolean().optional(),
  outbound_local_requests_whitelist: hostList.optional(),
  dns_rebinding_protection_enabled: param.boolean().optional(),
  deny_all_requests_except_allowed: param.boolean().optional(),
  deletion_adjourned_period: z.unknown().optional(),
  default_group_visibility: VISIBILITY.optional(),
  default_project_visibility: VISIBILITY.optional(),
  allow_group_owners_to_manage_ldap: param.boolean().optional(),
  password_authentication_enabled_for_web: param.boolean().optional(),
  password_authentication_enabled: param.boolean().optional(),
  signin_enabled: param.boolean().optional(),
  require_two_factor_authentication: param.boolean().optional(),
  two_factor_grace_period: param.integer().optional(),
  signup_enabled: param.boolean().optional(),
};
const NAMES = Object.keys(PARAMS);
const PASSWORD_NAMES = [
  "password_authentication_enabled_for_web",
  "password_authentication_enabled",
  "signin_enabled",
];

/**
 * deletion_adjourned_period has no declared type in GitLab: ActiveRecord casts it, and a value
 * that is not a number fails the model's numericality check rather than Grape's.
 */
function adjournedPeriod(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  if (!/^[-+]?\d+$/.test(text)) {
    throw new HttpError(400, { message: { deletion_adjourned_period: ["is not a number"] } });
  }
  // Beyond JavaScript's safe range the service's range check still answers, with the bound.
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number(text), Number.MAX_SAFE_INTEGER));
}

type SettingsParams = Call<typeof PARAMS>["params"];

/**
 * Grape's `at_least_one_of`, `mutually_exclusive` and `given require_two_factor_authentication`,
 * in that order; only the first that fails is reported.
 */
function settingsRules(p: SettingsParams) {
  const given = NAMES.filter((n) => p[n as keyof SettingsParams] !== undefined);
  const passwordNames = PASSWORD_NAMES.filter((n) => p[n as keyof SettingsParams] !== undefined);
  const problems = [
    !given.length && `${NAMES.join(", ")} are missing, at least one parameter must be provided`,
    passwordNames.length > 1 && `${passwordNames.join(", ")} are mutually exclusive`,
    p.require_two_factor_authentication &&
      p.two_factor_grace_period === undefined &&
      "two_factor_grace_period is missing",
  ];
  return [problems.find((problem) => typeof problem === "string")];
}

/** The change a PUT asks for. */
const changesOf = (p: SettingsParams): settings.ApplicationSettingsChanges => ({
  // GitLab: a legacy name, when given, wins over the current one.
  allowLocalRequestsFromWebHooksAndServices:
    p.allow_local_requests_from_hooks_and_services ?? p.allow_local_requests_from_web_hooks_and_services,
  outboundLocalRequestsWhitelist: p.outbound_local_requests_whitelist
    ? { values: p.outbound_local_requests_whitelist }
    : undefined,
  dnsRebindingProtectionEnabled: p.dns_rebinding_protection_enabled,
  denyAllRequestsExceptAllowed: p.deny_all_requests_except_allowed,
  deletionAdjournedPeriod: adjournedPeriod(p.deletion_adjourned_period),
  defaultGroupVisibility: p.default_group_visibility,
  defaultProjectVisibility: p.default_project_visibility,
  allowGroupOwnersToManageLdap: p.allow_group_owners_to_manage_ldap,
  passwordAuthenticationEnabledForWeb:
    p.password_authentication_enabled_for_web ?? p.password_authentication_enabled ?? p.signin_enabled,
  requireTwoFactorAuthentication: p.require_two_factor_authentication,
  twoFactorGracePeriod: p.two_factor_grace_period,
  signupEnabled: p.signup_enabled,
});

const noParams = {};

async function showApplicationSettings({ actor, ctx, deps }: Call<typeof noParams>) {
  const current = await deps.settings.getApplicationSettings({ actor });
  sendJson(ctx, 200, applicationSettingsEntity(current));
}

async function updateApplicationSettings({ params, actor, ctx, deps }: Call<typeof PARAMS>) {
  const updated = await deps.settings.updateApplicationSettings({ actor, changes: changesOf(params) });
  sendJson(ctx, 200, applicationSettingsEntity(updated));
}

export const applicationSettingsEndpoints = [
  endpoint({
    method: "GET",
    path: "/application/settings",
    access: "admin",
    adminBeforeParams: true,
    params: noParams,
    handler: showApplicationSettings,
    responses: { 200: ApplicationSettings },
  }),
  endpoint({
    method: "PUT",
    path: "/application/settings",
    access: "admin",
    adminBeforeParams: true,
    params: PARAMS,
    validate: settingsRules,
    handler: updateApplicationSettings,
    responses: { 200: ApplicationSettings },
  }),
];
