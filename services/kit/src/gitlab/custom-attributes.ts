/**
 * Limits of custom attributes. GitLab stores unbounded strings; Canopy bounds them so that one
 * attribute cannot bloat every detail and list that shows it. The gateway declares the same limits.
 */
export const CUSTOM_ATTRIBUTE_KEY_MAX = 255;
export const CUSTOM_ATTRIBUTE_VALUE_MAX = 10_000;

/** Model errors of a key and value (Rails' messages, GitLab's 400 keyed by attribute). */
export function customAttributeErrors(key: string, value: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!key.trim()) add("key", "can't be blank");
  if (key.length > CUSTOM_ATTRIBUTE_KEY_MAX)
    add("key", `is too long (maximum is ${CUSTOM_ATTRIBUTE_KEY_MAX} characters)`);
  if (key.includes("\u0000")) add("key", "is invalid");
  if (!value.trim()) add("value", "can't be blank");
  if (value.length > CUSTOM_ATTRIBUTE_VALUE_MAX)
    add("value", `is too long (maximum is ${CUSTOM_ATTRIBUTE_VALUE_MAX} characters)`);
  if (value.includes("\u0000")) add("value", "is invalid");
  return errors;
}
