import { CSRF_FIELD } from "../csrf";
import { flash, hiddenFields, layout, markup } from "../html";

export interface TwoFactorPageOptions {
  csrf: string;
  username: string;
  /** Where the forms post: the address the page was asked at. */
  path: string;
  enabled: boolean;
  /** While enrolling: the secret as text and its QR code (a data: URI image). */
  secret?: string;
  qrCode?: string;
  alert?: string;
  notice?: string;
}

const passwordField = markup`<label for="current_password">Current password</label>
<input type="password" id="current_password" name="current_password" autocomplete="current-password" required>`;

/** GitLab's "Two-Factor Authentication" profile page: register an authenticator app, or turn it off. */
export function twoFactorPage(o: TwoFactorPageOptions): string {
  const csrf = hiddenFields({ [CSRF_FIELD]: o.csrf });
  const body = o.enabled
    ? markup`<p>You've already enabled two-factor authentication using a one-time password authenticator. To register a different device, you must first disable two-factor authentication.</p>
<form method="post" action="${o.path}">${csrf}${hiddenFields({ _method: "delete" })}
${passwordField}
<div class="actions"><button type="submit" class="danger">Disable two-factor authentication</button></div>
</form>`
    : markup`<h2>Register a one-time password authenticator</h2>
<p>Use a one-time password authenticator on your mobile device or computer to enable two-factor authentication (2FA).</p>
<p>Scan this QR code with your authenticator app:</p>
<p><img src="${o.qrCode ?? ""}" alt="QR code for two-factor authentication" width="200" height="200"></p>
<p class="muted">Can't scan the code? Enter this key manually: <code id="otp_secret">${o.secret ?? ""}</code><br>Time based: Yes</p>
<form method="post" action="${o.path}">${csrf}
<label for="pin_code">Verification code</label>
<input type="text" id="pin_code" name="pin_code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required>
${passwordField}
<div class="actions"><button type="submit">Register with two-factor app</button></div>
</form>`;
  return layout(
    { title: "Two-Factor Authentication", username: o.username },
    markup`<div class="card">
<h1>Two-Factor Authentication</h1>
${flash("alert", o.alert)}${flash("notice", o.notice)}
${body}
</div>`,
  );
}

/** Shown once, right after enrolment: the recovery codes are never shown again. */
export function recoveryCodesPage(o: { username: string; codes: string[]; path: string }): string {
  return layout(
    { title: "Two-Factor Authentication", username: o.username },
    markup`<div class="card">
<h1>Two-Factor Authentication</h1>
${flash("notice", "Congratulations! You have enabled two-factor authentication!")}
<p>Should you ever lose your phone or access to your one-time password secret, each of these recovery codes can be used one time to regain access to your account. Please save them in a safe place, or you will lose access to your account.</p>
<pre id="recovery_codes">${o.codes.map((c) => markup`<span class="recovery-code">${c}</span>\n`)}</pre>
<div class="actions"><a href="${o.path}">Proceed</a></div>
</div>`,
  );
}
