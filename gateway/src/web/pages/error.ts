import { layout, markup } from "../html";

export interface ErrorPageOptions {
  heading: string;
  /** Shown as preformatted text (the OAuth error description, as GitLab shows it). */
  pre?: string;
  detail?: string;
  username?: string;
}

/** A page saying what went wrong, with a way back home. */
export function errorPage({ heading, pre, detail, username }: ErrorPageOptions): string {
  return layout(
    { title: heading, username },
    markup`<div class="card">
<h1>${heading}</h1>
${pre && markup`<pre>${pre}</pre>`}
${detail && markup`<p>${detail}</p>`}
<p><a href="/">Go to the home page</a></p>
</div>`,
  );
}
