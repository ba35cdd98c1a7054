import { CSRF_FIELD } from "../csrf";
import { flash, hiddenFields, layout, markup } from "../html";

/**
 * The second step of sign-in for a user with two-factor authentication: GitLab's `user[otp_attempt]`
 * field, posted to /users/sign_in like the password.
 */
export function signInCodePage({ csrf, alert }: { csrf: string; alert?: string }): string {
  return layout(
    { title: "Two-factor authentication" },
    markup`<div class="card">
<h1>Two-factor authentication</h1>
${flash("alert", alert)}
<form method="post" action="/users/sign_in">
${hiddenFields({ [CSRF_FIELD]: csrf })}
<label for="user_otp_attempt">Enter verification code</label>
<input type="text" id="user_otp_attempt" name="user[otp_attempt]" inputmode="numeric" autocomplete="one-time-code" autocapitalize="off" required autofocus>
<p class="muted">Enter the code from your two-factor authenticator app. If you've lost your device, you can enter one of your recovery codes.</p>
<div class="actions"><button type="submit">Verify code</button></div>
</form>
</div>`,
  );
}
