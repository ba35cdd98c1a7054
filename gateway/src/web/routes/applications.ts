import type Router from "@koa/router";
import type { Context } from "koa";
import { status } from "@grpc/grpc-js";
import { errorDetailOf, fieldErrorsOf, isServiceError } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { notFoundError } from "../../http/errors";
import { field, formBody, requireWebUser, type WebDeps, type WebUser } from "../context";
import { applicationSecretPage } from "../pages/application-secret";
import { applicationsPage, EMPTY_FORM, type ApplicationForm } from "../pages/applications";
import { redirectTo, sendPage } from "../respond";

/** GitLab moved the page; both addresses work. */
const BASES = ["/profile/applications", "/-/user_settings/applications"];

// How the auth service's field names read in a sentence: "Redirect URI must be a valid URI."
const FIELD_LABELS: Record<string, string> = { name: "Name", redirect_uri: "Redirect URI", scopes: "Scopes" };

const checked = (body: Record<string, unknown>, name: string) =>
  field(body, name) !== "" && field(body, name) !== "0";

/** The create form as posted; `scopes[]` arrives as a list (or a single string) of known scope names. */
function postedForm(ctx: Context, user: WebUser): ApplicationForm {
  const body = formBody(ctx);
  const raw = body.scopes ?? body["scopes[]"];
  const scopes = (Array.isArray(raw) ? raw : [raw]).filter((s): s is string => typeof s === "string");
  return {
    name: field(body, "name"),
    redirectUri: field(body, "redirect_uri"),
    // Unknown names are passed on, so the auth service can refuse them with its own message.
    scopes: [...new Set(scopes)],
    confidential: checked(body, "confidential"),
    trusted: user.user.admin && checked(body, "trusted"),
  };
}

/** The field errors of a refused create as sentences, or undefined when the refusal was something else. */
function validationMessages(err: unknown): string[] | undefined {
  if (!isServiceError(err) || err.code !== status.INVALID_ARGUMENT) return undefined;
  const detail = errorDetailOf(err);
  const fields = fieldErrorsOf(detail);
  const messages = Object.entries(fields).flatMap(([name, list]) =>
    list.map((m) => `${FIELD_LABELS[name] ?? name} ${m}`),
  );
  return messages.length ? messages : [detail.publicMessage || "The application could not be saved."];
}

const applicationId = (ctx: Context) => {
  const id = (ctx as unknown as { params: { id: string } }).params.id;
  if (!/^\d{1,15}$/.test(id)) throw notFoundError("Application");
  return Number(id);
};

/** The one time a secret is shown: straight in the answer to the POST, never stored to show later. */
function showSecret(
  ctx: Context,
  base: string,
  user: WebUser,
  answer: oauth.ApplicationWithSecret,
  notice: string,
) {
  const { application, secret } = answer;
  const page = applicationSecretPage({
    base,
    username: user.user.username,
    application: application!,
    secret,
    notice,
  });
  sendPage(ctx, 200, page);
}

export function applicationRoutes(router: Router, deps: WebDeps) {
  const { oauth: client, sessions } = deps;

  const render = async (
    ctx: Context,
    base: string,
    user: WebUser,
    form = EMPTY_FORM,
    errors: string[] = [],
  ) => {
    const { applications } = await client.listApplications({ actor: user.actor, instance: false });
    const notice = user.session.data.notice;
    if (notice) {
      delete user.session.data.notice;
      await sessions.save(user.session);
    }
    const page = applicationsPage({
      base,
      csrf: user.session.data.csrf,
      username: user.user.username,
      admin: user.user.admin,
      applications,
      form,
      errors,
      notice,
    });
    sendPage(ctx, 200, page);
  };

  for (const base of BASES) {
    router.get(base, async (ctx) => {
      const user = await requireWebUser(ctx, deps);
      if (user) await render(ctx, base, user);
    });

    router.post(base, async (ctx) => {
      const user = await requireWebUser(ctx, deps, base);
      if (!user) return;
      const form = postedForm(ctx, user);
      const created = await client
        .createApplication({ actor: user.actor, ...form, instance: false })
        .catch((err: unknown) => {
          const errors = validationMessages(err);
          if (!errors) throw err;
          return errors;
        });
      if (Array.isArray(created)) return render(ctx, base, user, form, created);
      showSecret(ctx, base, user, created, "The application was created successfully.");
    });

    router.post(`${base}/:id/renew`, async (ctx) => {
      const user = await requireWebUser(ctx, deps, base);
      if (!user) return;
      const renewed = await client.renewApplicationSecret({
        actor: user.actor,
        id: applicationId(ctx),
        instance: false,
      });
      showSecret(ctx, base, user, renewed, "Application secret was successfully updated.");
    });

    router.post(`${base}/:id/delete`, async (ctx) => {
      const user = await requireWebUser(ctx, deps, base);
      if (!user) return;
      await client.deleteApplication({ actor: user.actor, id: applicationId(ctx), instance: false });
      user.session.data.notice = "The application was deleted successfully.";
      await sessions.save(user.session);
      redirectTo(ctx, base);
    });
  }
}
