import { flash, layout, markup } from "../html";

/** A tiny landing page: who is signed in, and where to go. */
export function homePage({ username, notice }: { username?: string; notice?: string }): string {
  const body = username
    ? markup`<p>Signed in as @${username}</p>
<ul>
<li><a href="/profile/applications">Applications</a></li>
<li><a href="/users/sign_out">Sign out</a></li>
</ul>`
    : markup`<p>You are not signed in.</p>
<p><a href="/users/sign_in">Sign in</a></p>`;
  return layout(
    { title: "Home", username },
    markup`<div class="card">
<h1>Canopy</h1>
${flash("notice", notice)}
${body}
</div>`,
  );
}
