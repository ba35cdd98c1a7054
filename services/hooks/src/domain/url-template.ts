/**
 * A hook URL may name variables, `{name}`, filled from its url_variables when it is sent
 * (app/models/concerns/web_hooks/hook.rb). The pattern is GitLab's VARIABLE_REFERENCE_RE.
 */
const VARIABLE_REFERENCE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g;

/** The variable names the URL uses, in order of first use. */
export function variablesUsed(url: string): string[] {
  return [...new Set([...url.matchAll(VARIABLE_REFERENCE)].map((m) => m[1]!))];
}

/** The URL with each `{name}` replaced; undefined when a name has no value. */
export function interpolate(url: string, variables: Record<string, string>): string | undefined {
  let missing = false;
  const out = url.replace(VARIABLE_REFERENCE, (_, name: string) => {
    const value = variables[name];
    if (value === undefined) missing = true;
    return value ?? "";
  });
  return missing ? undefined : out;
}

/** Ruby's Array#inspect of strings, as GitLab prints `Missing keys: ["a", "b"]`. */
export const rubyArray = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(", ")}]`;

/**
 * The URL as logs show it: the stored template (placeholders stay placeholders) with the
 * userinfo's password masked (GitLab's masked url).
 */
export function maskedUrl(template: string): string {
  return template.replace(/^(https?:\/\/)([^/@]*)@/i, (_, scheme: string, userinfo: string) => {
    const [user] = userinfo.split(":");
    return `${scheme}${user}:*****@`;
  });
}
