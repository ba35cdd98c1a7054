import type { oauth } from "@canopy/protos";
import { CSRF_FIELD } from "../csrf";
import { flash, hiddenFields, layout, markup, type SafeHtml } from "../html";
import { FORM_SCOPES } from "../scopes";

/** What the create form holds: the defaults, or what was typed before a validation error. */
export interface ApplicationForm {
  name: string;
  redirectUri: string;
  scopes: string[];
  confidential: boolean;
  trusted: boolean;
}

export const EMPTY_FORM: ApplicationForm = {
  name: "",
  redirectUri: "",
  scopes: [],
  confidential: true,
  trusted: false,
};

export interface ApplicationsPageOptions {
  /** `/profile/applications` or `/-/user_settings/applications`: forms post back where they came from. */
  base: string;
  csrf: string;
  username: string;
  admin: boolean;
  applications: oauth.Application[];
  form: ApplicationForm;
  errors: string[];
  notice?: string;
}

const checkbox = (name: string, id: string, label: string, checked: boolean, value = "1") =>
  markup`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="${value}"${checked && markup` checked`}>${label}</label>`;

const errorList = (errors: string[]) =>
  errors.length > 0 &&
  markup`<div class="flash alert" role="alert">
<b>The form contains the following errors:</b>
<ul class="errors">${errors.map((e) => markup`<li>${e}</li>`)}</ul>
</div>`;

function createForm({ base, csrf, admin, form, errors }: ApplicationsPageOptions): SafeHtml {
  return markup`<div class="card">
<h2>Add new application</h2>
${errorList(errors)}
<form method="post" action="${base}">
${hiddenFields({ [CSRF_FIELD]: csrf })}
<label for="application_name">Name</label>
<input type="text" id="application_name" name="name" value="${form.name}" maxlength="255" required>
<label for="application_redirect_uri">Redirect URI</label>
<textarea id="application_redirect_uri" name="redirect_uri" required>${form.redirectUri}</textarea>
<p class="muted">Use one line per URI.</p>
${checkbox("confidential", "application_confidential", "Confidential", form.confidential)}
<p class="muted">The application will be used where the client secret can be kept confidential. Native mobile apps and Single Page Apps are considered non-confidential.</p>
${admin && checkbox("trusted", "application_trusted", "Trusted", form.trusted)}
${admin && markup`<p class="muted">Trusted applications are authorized without asking the user for consent.</p>`}
<fieldset>
<legend>Scopes</legend>
<div class="scopes">
${FORM_SCOPES.map((s) => checkbox("scopes[]", `application_scopes_${s}`, s, form.scopes.includes(s), s))}
</div>
</fieldset>
<div class="actions"><button type="submit">Save application</button></div>
</form>
</div>`;
}

function applicationRow(base: string, csrf: string, app: oauth.Application): SafeHtml {
  const path = `${base}/${app.id}`;
  const token = hiddenFields({ [CSRF_FIELD]: csrf });
  return markup`<tr>
<td>${app.name}</td>
<td><code>${app.uid}</code></td>
<td>${app.redirectUri.split("\n").map((u) => markup`<div>${u}</div>`)}</td>
<td>${app.scopes.join(" ")}</td>
<td>${app.confidential ? "Yes" : "No"}${app.trusted && " (trusted)"}</td>
<td><div class="actions">
<form method="post" action="${path}/renew">${token}<button type="submit" class="secondary">Renew secret</button></form>
<form method="post" action="${path}/delete">${token}<button type="submit" class="danger">Delete</button></form>
</div></td>
</tr>`;
}

/** The user's applications and the form to add one (GitLab's user settings page). */
export function applicationsPage(options: ApplicationsPageOptions): string {
  const { base, csrf, username, applications, notice } = options;
  const list = applications.length
    ? markup`<table>
<thead><tr><th>Name</th><th>Application ID</th><th>Callback URL</th><th>Scopes</th><th>Confidential</th><th></th></tr></thead>
<tbody>${applications.map((a) => applicationRow(base, csrf, a))}</tbody>
</table>`
    : markup`<p class="muted">You don't have any applications.</p>`;
  return layout(
    { title: "Applications", username },
    markup`<h1>Applications</h1>
${flash("notice", notice)}
<p class="muted">Manage applications that can use Canopy as an OAuth provider.</p>
${createForm(options)}
<div class="card">
<h2>Your applications (${applications.length})</h2>
${list}
</div>`,
  );
}
