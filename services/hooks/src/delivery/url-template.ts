/**
 * Hook URLs with `{name}` placeholders filled from the hook's URL variables
 * (app/models/concerns/web_hooks/hook.rb `interpolated_url`), and the two ways a log shows a URL
 * without its secrets: credentials masked, variable values put back as `{name}`.
 */

/** A placeholder: letters, then digits, then groups of `.`, `_` or `-` and alphanumerics. */
const VARIABLE_REFERENCE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g;

export type Interpolation = { ok: true; url: string } | { ok: false; message: string };

/** The variable names a URL template uses, in order of appearance. */
export function urlTemplateKeys(template: string): string[] {
  return [...template.matchAll(VARIABLE_REFERENCE)].map((m) => m[1]!);
}

/** The URL with every placeholder replaced, or GitLab's error naming the first missing key. */
export function interpolateUrl(template: string, variables: Record<string, string>): Interpolation {
  const missing = urlTemplateKeys(template).find((key) => !Object.hasOwn(variables, key));
  if (missing !== undefined) return { ok: false, message: `Invalid URL template. Missing key ${missing}` };
  return { ok: true, url: template.replace(VARIABLE_REFERENCE, (_, key: string) => variables[key]!) };
}

const MASK = "*****";

/**
 * `user:password@` in a URL (template or not) replaced by `*****:*****@`, as the delivery log stores
 * it (Gitlab::UrlSanitizer.sanitize_masked_url).
 */
export function maskUrlCredentials(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/, (_, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    const user = colon === -1 ? userinfo : userinfo.slice(0, colon);
    const password = colon === -1 ? "" : userinfo.slice(colon + 1);
    const masked = [user ? MASK : "", password ? `:${MASK}` : ""].join("");
    return `${scheme}${masked}@`;
  });
}

/** Each URL-variable value found in `text` put back as `{name}` (WebHooks::LogExecutionService). */
export function maskVariableValues(text: string, variables: Record<string, string>): string {
  const byLength = Object.entries(variables)
    .filter(([, value]) => value.length > 0)
    .sort(([, a], [, b]) => b.length - a.length);
  let out = text;
  for (const [name, value] of byLength) out = out.split(value).join(`{${name}}`);
  return out;
}
