import escapeHtml from "escape-html";

/** Markup that is already safe to send: built by `markup` below, never from raw user input. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

/**
 * A template tag that escapes every interpolated value unless it is itself SafeHtml, so a page
 * cannot forget to escape a name, URI or error message. Arrays are joined; null, undefined and
 * false render as nothing (handy for `${cond && markup`...`}`). It is deliberately not called
 * `html`: Prettier would reformat the templates as HTML, whitespace inside text included.
 */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** Hidden inputs, one per entry; values are escaped like everything else. */
export const hiddenFields = (fields: Record<string, string>) =>
  markup`${Object.entries(fields).map(([name, value]) => markup`<input type="hidden" name="${name}" value="${value}">`)}`;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f1e24;background:#f6f6f8}
header{background:#292961;color:#fff;padding:.6rem 1.5rem;display:flex;gap:1rem;align-items:center}
header a{color:#fff;text-decoration:none}
header .brand{font-weight:700;font-size:1.1rem;margin-right:auto}
main{max-width:960px;margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #dcdcde;border-radius:8px;padding:1.5rem;margin-bottom:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.3rem 0}
input[type=text],input[type=password],textarea{width:100%;padding:.5rem;border:1px solid #bfbfc3;border-radius:4px;font:inherit}
textarea{min-height:5rem}
fieldset{border:1px solid #dcdcde;border-radius:4px;margin:1rem 0 0}
button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid #1f75cb;background:#1f75cb;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f1e24;border-color:#bfbfc3}
button.danger{background:#dd2b0e;border-color:#dd2b0e}
.actions{display:flex;gap:.5rem;margin-top:1rem;flex-wrap:wrap;align-items:center}
.actions form{margin:0}
.flash{padding:.75rem 1rem;border-radius:4px;margin-bottom:1rem}
.flash.alert{background:#fdd4cd;border:1px solid #f57f6c}
.flash.notice{background:#c3e6cd;border:1px solid #91d4a8}
.errors{color:#ae1800;margin:.25rem 0 0;padding-left:1.2rem}
.scopes{columns:2}
.muted{color:#626168;font-size:.9rem}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;background:#ececef;padding:.1rem .3rem;border-radius:3px;word-break:break-all}
pre{padding:.75rem;white-space:pre-wrap}
table{width:100%;border-collapse:collapse;table-layout:fixed}
td code{font-size:.8rem}
td .actions{flex-direction:column;align-items:stretch;margin-top:0}
th:last-child{width:7.5rem}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #ececef;vertical-align:top;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem;margin:0}
dt{font-weight:600}
dd{margin:0}
`;

export interface LayoutOptions {
  title: string;
  /** The signed-in user's username, for the header; absent on anonymous pages. */
  username?: string;
}

/** The one page skeleton: a header bar and a centred column. No scripts, inline CSS only. */
export function layout({ title, username }: LayoutOptions, body: SafeHtml): string {
  const nav = username
    ? markup`<a href="/profile/applications">Applications</a><a href="/users/sign_out">Sign out</a>`
    : markup`<a href="/users/sign_in">Sign in</a>`;
  return markup`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Canopy</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<header><a class="brand" href="/">Canopy</a>${nav}</header>
<main>
${body}
</main>
</body>
</html>
`.value;
}

/** A notice or alert banner, if there is a message. */
export const flash = (kind: "notice" | "alert", message?: string) =>
  message
    ? markup`<div class="flash ${kind}" role="${kind === "alert" ? "alert" : "status"}">${message}</div>`
    : markup``;
