import type { Context } from "koa";

/**
 * Sources a page's forms may submit to, and where those submissions may redirect: Chromium applies
 * `form-action` to every hop of the redirect chain, so an authorize form must list the client's
 * redirect URI origin (or custom scheme) as well as our own.
 */
export function formActionSourceOf(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // A custom scheme (myapp://callback) is allowed as a scheme source.
  const source = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  return isSafeSource(source) ? source.toLowerCase() : undefined;
}

/**
 * CSP source expressions (host-source with an optional port, or scheme-source) in a strict form. The
 * URL parser keeps characters such as `;`, `,` and `'` in a host ("http://x;sandbox"), and these would
 * end the directive and start new ones in the header, so anything else is left out of the policy.
 */
const SAFE_SOURCE =
  /^(?:https?:\/\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?|[a-z][a-z0-9+.-]*:)$/i;
const isSafeSource = (source: string) => SAFE_SOURCE.test(source);

/** The headers every page and redirect of the web UI carries. */
export function setPageHeaders(ctx: Context, formActions: string[] = []) {
  // Sources come from request parameters: only well-formed ones ever reach the header.
  const formAction = ["'self'", ...new Set(formActions.filter(isSafeSource))].join(" ");
  ctx.set({
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
  });
}

export function sendPage(ctx: Context, status: number, document: string, formActions: string[] = []) {
  setPageHeaders(ctx, formActions);
  ctx.status = status;
  ctx.set("Content-Type", "text/html; charset=utf-8");
  ctx.body = document;
}

/** A 302; the security headers ride along so even the tiny "Redirecting" body cannot be framed. */
export function redirectTo(ctx: Context, location: string) {
  setPageHeaders(ctx);
  ctx.status = 302;
  ctx.set("Location", location);
  ctx.set("Content-Type", "text/html; charset=utf-8");
  ctx.body = "";
}
