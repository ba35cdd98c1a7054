/**
 * A hook's `custom_webhook_template` (WebHookService#request_payload): each `{{a.b.c}}` is
 * replaced by the value at that path of the payload, and the result must parse as JSON; what is
 * sent is that JSON. Values are inserted JSON-encoded, strings without their outer quotes, so a
 * name with a quote in it stays valid JSON (GitLab's `custom_webhook_template_serialization`).
 */

/** The column's limit (a longer template is a validation error on save). */
export const CUSTOM_TEMPLATE_MAX_LENGTH = 4096;

const PLACEHOLDER = /\{\{(.+?)\}\}/g;
const ERROR_PREFIX = "Error while parsing rendered custom webhook template: ";

/** GitLab's text when a path walks into an array or a scalar (Ruby's dig raises TypeError). */
export const ARRAY_ACCESS_MESSAGE = `${ERROR_PREFIX}You may be trying to access an array value, which is not supported.`;

export type RenderedTemplate = { ok: true; payload: unknown } | { ok: false; message: string };

class DigTypeError extends Error {}

/** Ruby's Hash#dig over string keys: nil stops the walk, anything but a hash cannot be dug. */
function dig(data: unknown, path: string[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || current === undefined) return undefined;
    if (typeof current !== "object" || Array.isArray(current)) throw new DigTypeError();
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

function serialize(value: unknown): string {
  if (value === undefined) return "null";
  const json = JSON.stringify(value);
  return typeof value === "string" ? json.slice(1, -1) : json;
}

/** The template filled from `payload` and parsed, or the error GitLab logs (an internal error). */
export function renderCustomTemplate(template: string, payload: Record<string, unknown>): RenderedTemplate {
  let rendered: string;
  try {
    rendered = template.replace(PLACEHOLDER, (_, path: string) => serialize(dig(payload, path.split("."))));
  } catch (error) {
    if (error instanceof DigTypeError) return { ok: false, message: ARRAY_ACCESS_MESSAGE };
    throw error;
  }
  try {
    return { ok: true, payload: JSON.parse(rendered) };
  } catch (error) {
    return { ok: false, message: ERROR_PREFIX + (error as Error).message };
  }
}
