import type { oauth } from "@canopy/protos";
import { flash, layout, markup } from "../html";

export interface ApplicationSecretPageOptions {
  base: string;
  username: string;
  application: oauth.Application;
  secret: string;
  notice: string;
}

/** Shown right after creating an application or renewing its secret: the only time the secret is visible. */
export function applicationSecretPage(options: ApplicationSecretPageOptions): string {
  const { base, username, application: app, secret, notice } = options;
  return layout(
    { title: `Application: ${app.name}`, username },
    markup`<h1>Application: ${app.name}</h1>
${flash("notice", notice)}
<div class="card">
<dl>
<dt>Application ID</dt><dd><code>${app.uid}</code></dd>
<dt>Secret</dt><dd><code>${secret}</code></dd>
<dt>Callback URL</dt><dd>${app.redirectUri.split("\n").map((u) => markup`<div>${u}</div>`)}</dd>
<dt>Scopes</dt><dd>${app.scopes.join(" ") || "(none)"}</dd>
<dt>Confidential</dt><dd>${app.confidential ? "Yes" : "No"}</dd>
${app.trusted && markup`<dt>Trusted</dt><dd>Yes</dd>`}
</dl>
<p class="flash alert">This is the only time the secret is accessible. Copy the secret and store it securely; it won't be shown again.</p>
<div class="actions"><a href="${base}">Continue</a></div>
</div>`,
  );
}
