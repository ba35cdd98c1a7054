import { interpolateUrl, urlTemplateKeys } from "../delivery/url-template";

/**
 * A hook URL may name variables, `{name}`, filled from its url_variables when it is sent
 * (app/models/concerns/web_hooks/hook.rb). The delivery runtime parses them (delivery/url-template.ts);
 * these are the model's views of the same parse.
 */

/** The variable names the URL uses, in order of first use. */
export const variablesUsed = (url: string): string[] => [...new Set(urlTemplateKeys(url))];

/** The URL with each `{name}` replaced; undefined when a name has no value. */
export function interpolate(url: string, variables: Record<string, string>): string | undefined {
  const result = interpolateUrl(url, variables);
  return result.ok ? result.url : undefined;
}

/** Ruby's Array#inspect of strings, as GitLab prints `Missing keys: ["a", "b"]`. */
export const rubyArray = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(", ")}]`;
