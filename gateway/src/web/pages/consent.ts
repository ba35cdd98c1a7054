import type { oauth } from "@canopy/protos";
import { CSRF_FIELD } from "../csrf";
import { hiddenFields, layout, markup } from "../html";
import { describeScope } from "../scopes";

export interface ConsentPageOptions {
  username: string;
  userDisplayName: string;
  admin: boolean;
  application: oauth.Application;
  ownerName: string;
  scopes: string[];
  /** The authorization request, echoed in both forms. */
  request: Record<string, string>;
  csrf: string;
}

/** "You will be redirected to example.com": only for http(s) URIs that are not localhost, without "www." (GitLab). */
function redirectHost(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.hostname === "localhost") return undefined;
    return url.hostname.replace(/^www\./, "");
  } catch {
    return undefined;
  }
}

const registeredOn = (app: oauth.Application) =>
  app.createdAt ? ` on ${app.createdAt.toISOString().slice(0, 10)}` : "";

/** GitLab's authorization page: who asks, for what, and the two buttons. */
export function consentPage(o: ConsentPageOptions): string {
  const app = o.application;
  const fields = hiddenFields({ ...o.request, [CSRF_FIELD]: o.csrf });
  const host = redirectHost(o.request.redirect_uri ?? "");
  return layout(
    { title: "Authorize application", username: o.username },
    markup`<div class="card">
<h1>Authorize application</h1>
<p><b>${app.name}</b> is requesting access to your account on Canopy.</p>
<p class="muted">Signed in as ${o.userDisplayName} (@${o.username})</p>
${o.admin && markup`<p class="flash alert">You are an administrator: <b>${app.name}</b> will be able to act as an administrator too.</p>`}
<h2>This application will be able to:</h2>
<ul>${o.scopes.map((s) => markup`<li><b>${s}</b>: ${describeScope(s)}</li>`)}</ul>
<p>Make sure you trust <b>${app.name}</b> before authorizing.</p>
${o.ownerName && markup`<p class="muted">Registered by ${o.ownerName}${registeredOn(app)}.</p>`}
${host && markup`<p>You will be redirected to <b>${host}</b> after authorizing.</p>`}
<div class="actions">
<form method="post" action="/oauth/authorize">${fields}<button type="submit">Authorize</button></form>
<form method="post" action="/oauth/authorize">${fields}${hiddenFields({ _method: "delete" })}<button type="submit" class="secondary">Deny</button></form>
</div>
</div>`,
  );
}
