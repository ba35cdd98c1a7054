import { CSRF_FIELD } from "../csrf";
import { hiddenFields, layout, markup } from "../html";

/** A GET of /users/sign_out asks first: signing out changes state, so it is a form post. */
export function signOutPage({ csrf, username }: { csrf: string; username: string }): string {
  return layout(
    { title: "Sign out", username },
    markup`<div class="card">
<h1>Sign out</h1>
<p>You are signed in as @${username}.</p>
<form method="post" action="/users/sign_out">
${hiddenFields({ [CSRF_FIELD]: csrf })}
<div class="actions"><button type="submit">Sign out</button></div>
</form>
</div>`,
  );
}
