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
  if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  // A custom scheme (myapp://callback) is allowed as a scheme source; its syntax holds no CSP delimiters.
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol.toLowerCase() : undefined;
}

/** The headers every page and redirect of the web UI carries. */
export function setPageHeaders(ctx: Context, formActions: string[] = []) {
  const formAction = ["'self'", ...new Set(formActions)].join(" ");
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
