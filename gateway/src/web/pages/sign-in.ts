import { CSRF_FIELD } from "../csrf";
import { flash, hiddenFields, layout, markup } from "../html";

/** An LDAP server people may sign in with (GitLab: a tab labelled with the server's `label`). */
export interface SignInTab {
  provider: string;
  label: string;
}

export interface SignInPageOptions {
  csrf: string;
  /** What was typed, kept on a failed attempt; the password never is. */
  login?: string;
  alert?: string;
  notice?: string;
  /** The configured LDAP servers; none without LDAP, and the page is GitLab's plain form. */
  ldap?: SignInTab[];
  /** The tab the last attempt came from (a provider, or "" for the standard form). */
  active?: string;
}

/**
 * GitLab's sign-in page. Without LDAP: the standard form, `user[login]` and `user[password]`. With
 * LDAP (GitLab's devise/sessions/_new_ldap): first a tab per server, labelled with its `label`, whose
 * form posts `username` and `password` to /users/auth/<provider>/callback, then the "Standard" tab.
 * No scripts: the tabs are sections, and a link at the top leads to each.
 */
export function signInPage({
  csrf,
  login = "",
  alert,
  notice,
  ldap = [],
  active,
}: SignInPageOptions): string {
  const current = active ?? (ldap.length ? ldap[0]!.provider : "");
  const csrfField = hiddenFields({ [CSRF_FIELD]: csrf });
  const message = (tab: string) =>
    tab === current && markup`${flash("alert", alert)}${flash("notice", notice)}`;
  const tabs =
    ldap.length > 0 &&
    markup`<nav class="tabs" aria-label="Sign-in methods">${ldap.map(
      (t) =>
        markup`<a href="#${t.provider}"${t.provider === current ? markup` aria-current="true"` : ""}>${t.label}</a> `,
    )}<a href="#login-pane"${current === "" ? markup` aria-current="true"` : ""}>Standard</a></nav>`;
  const ldapForms = ldap.map(
    (t) => markup`<section id="${t.provider}">
<h2>${t.label}</h2>
${message(t.provider)}
<form method="post" action="/users/auth/${t.provider}/callback">
${csrfField}
<label for="${t.provider}_username">${t.label} Username</label>
<input type="text" id="${t.provider}_username" name="username" value="${t.provider === current ? login : ""}" autocomplete="username" autocapitalize="off" required${t.provider === current ? markup` autofocus` : ""}>
<label for="${t.provider}_password">Password</label>
<input type="password" id="${t.provider}_password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
</section>`,
  );
  return layout(
    { title: "Sign in" },
    markup`<div class="card">
<h1>Sign in to Canopy</h1>
${tabs}
${ldapForms}
<section id="login-pane">
${ldap.length > 0 && markup`<h2>Standard</h2>`}
${message("")}
<form method="post" action="/users/sign_in">
${csrfField}
<label for="user_login">Username or email</label>
<input type="text" id="user_login" name="user[login]" value="${current === "" ? login : ""}" autocomplete="username" autocapitalize="off" required${current === "" ? markup` autofocus` : ""}>
<label for="user_password">Password</label>
<input type="password" id="user_password" name="user[password]" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
</section>
</div>`,
  );
}
