import type Router from "@koa/router";
import { z } from "zod";
import type { settings } from "@canopy/protos";
import { applicationSettingsEntity } from "../entities/application-settings";
import { forbiddenError, HttpError, paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { param, parseParams } from "../http/params";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { actorOf, rawParams, type RouteDeps } from "./context";

/**
 * GET/PUT /application/settings (GitLab's lib/api/settings.rb), for the settings Canopy keeps.
 * Administrators only: the auth service decides, so others get its 403. Unknown parameters are
 * ignored, as Grape ignores undeclared ones.
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

/** The change a PUT asks for, with Grape's 400s for what its declaration refuses. */
function changesOf(raw: Record<string, unknown>): settings.ApplicationSettingsChanges {
  const p = parseParams(PARAMS, raw);
  const given = NAMES.filter((n) => raw[n] !== undefined);
  if (!given.length)
    throw paramError(`${NAMES.join(", ")} are missing, at least one parameter must be provided`);
  const passwordNames = PASSWORD_NAMES.filter((n) => raw[n] !== undefined);
  if (passwordNames.length > 1) throw paramError(`${passwordNames.join(", ")} are mutually exclusive`);
  if (p.require_two_factor_authentication && p.two_factor_grace_period === undefined)
    throw paramError("two_factor_grace_period is missing");
  return {
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
  };
}

export function applicationSettingsRoutes(router: Router, { settings: client }: RouteDeps) {
  const api = requireScopes();

  router.get("/application/settings", requireUser, api, async (ctx) => {
    const current = await client.getApplicationSettings({ actor: actorOf(ctx) });
    sendJson(ctx, 200, applicationSettingsEntity(current));
  });

  router.put("/application/settings", requireUser, api, async (ctx) => {
    const actor = actorOf(ctx);
    let changes: settings.ApplicationSettingsChanges;
    try {
      changes = changesOf(rawParams(ctx));
    } catch (err) {
      // Grape runs `authenticated_as_admin!` before validating: others learn nothing about params.
      throw actor.admin ? err : forbiddenError();
    }
    const updated = await client.updateApplicationSettings({ actor, changes });
    sendJson(ctx, 200, applicationSettingsEntity(updated));
  });
}
