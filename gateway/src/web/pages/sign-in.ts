import { CSRF_FIELD } from "../csrf";
import { flash, hiddenFields, layout, markup } from "../html";

export interface SignInPageOptions {
  csrf: string;
  /** What was typed, kept on a failed attempt; the password never is. */
  login?: string;
  alert?: string;
  notice?: string;
}

/** GitLab's sign-in form: `user[login]` and `user[password]`, labelled as GitLab labels them. */
export function signInPage({ csrf, login = "", alert, notice }: SignInPageOptions): string {
  return layout(
    { title: "Sign in" },
    markup`<div class="card">
<h1>Sign in to Canopy</h1>
${flash("alert", alert)}${flash("notice", notice)}
<form method="post" action="/users/sign_in">
${hiddenFields({ [CSRF_FIELD]: csrf })}
<label for="user_login">Username or email</label>
<input type="text" id="user_login" name="user[login]" value="${login}" autocomplete="username" autocapitalize="off" required autofocus>
<label for="user_password">Password</label>
<input type="password" id="user_password" name="user[password]" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
</div>`,
  );
}
