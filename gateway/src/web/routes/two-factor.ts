import type Router from "@koa/router";
import type { Context } from "koa";
import QRCode from "qrcode";
import { auth } from "@canopy/protos";
import { field, formBody, requireWebUser, type WebDeps, type WebUser } from "../context";
import { recoveryCodesPage, twoFactorPage } from "../pages/two-factor";
import { redirectTo, sendPage } from "../respond";

/** GitLab moved the page; both addresses work. */
const BASES = ["/-/profile/two_factor_auth", "/profile/two_factor_auth"];

// GitLab's flash texts (Profiles::TwoFactorAuthsController).
const ALERTS: Record<number, string> = {
  [auth.TwoFactorRefusal.TWO_FACTOR_REFUSAL_WRONG_PASSWORD]: "You must provide a valid current password.",
  [auth.TwoFactorRefusal.TWO_FACTOR_REFUSAL_INVALID_CODE]: "Invalid pin code.",
  [auth.TwoFactorRefusal.TWO_FACTOR_REFUSAL_ALREADY_ENABLED]: "Two-factor authentication is already enabled.",
  [auth.TwoFactorRefusal.TWO_FACTOR_REFUSAL_NOT_ENABLED]:
    "Two-factor authentication is not enabled for this user.",
};
const DISABLED = "Two-factor authentication has been disabled successfully!";

/**
 * The profile page for two-factor authentication: enrol an authenticator app (QR code and secret,
 * confirmed by a code and the password), see the recovery codes once, turn it off with the password.
 */
export function twoFactorRoutes(router: Router, deps: WebDeps) {
  const { auth: client, sessions } = deps;

  async function show(ctx: Context, user: WebUser, path: string, alert?: string) {
    const notice = user.session.data.notice;
    if (notice) {
      delete user.session.data.notice;
      await sessions.save(user.session);
    }
    const state = await client.prepareTwoFactor({ actor: user.actor });
    // Rendered here, not in the service: the QR code is presentation, the secret is the fact.
    const qrCode = state.enabled ? undefined : await QRCode.toDataURL(state.provisioningUri, { margin: 1 });
    const page = twoFactorPage({
      csrf: user.session.data.csrf,
      username: user.user.username,
      path,
      enabled: state.enabled,
      secret: state.secret || undefined,
      qrCode,
      alert,
      notice,
    });
    sendPage(ctx, 200, page);
  }

  async function enable(ctx: Context, user: WebUser, path: string) {
    const body = formBody(ctx);
    const answer = await client.enableTwoFactor({
      actor: user.actor,
      code: field(body, "pin_code"),
      password: field(body, "current_password"),
    });
    if (answer.refusal) return show(ctx, user, path, ALERTS[answer.refusal]);
    sendPage(
      ctx,
      200,
      recoveryCodesPage({ username: user.user.username, codes: answer.recoveryCodes, path }),
    );
  }

  async function disable(ctx: Context, user: WebUser, path: string) {
    const password = field(formBody(ctx), "current_password");
    const answer = await client.disableTwoFactor({ actor: user.actor, userId: 0, password });
    if (answer.refusal) return show(ctx, user, path, ALERTS[answer.refusal]);
    user.session.data.notice = DISABLED;
    await sessions.save(user.session);
    redirectTo(ctx, path);
  }

  for (const base of BASES) {
    router.get(base, async (ctx) => {
      const user = await requireWebUser(ctx, deps);
      if (user) await show(ctx, user, base);
    });

    // Forms post; "Disable" posts `_method=delete` (or sends a real DELETE), as Rails forms do.
    router.post(base, async (ctx) => {
      const user = await requireWebUser(ctx, deps, base);
      if (!user) return;
      const deleting = field(formBody(ctx), "_method").toLowerCase() === "delete";
      await (deleting ? disable : enable)(ctx, user, base);
    });

    router.delete(base, async (ctx) => {
      const user = await requireWebUser(ctx, deps, base);
      if (user) await disable(ctx, user, base);
    });
  }
}
