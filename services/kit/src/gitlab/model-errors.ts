/*
 * A model's validation errors as GitLab answers them (Rails' ActiveModel::Errors through
 * `render_validation_error!`): messages keyed by attribute, in the order the checks found them.
 */

export type FieldErrors = Record<string, string[]>;

/** Adds `message` to `field`'s errors, after those already there. */
export const addFieldError = (errors: FieldErrors, field: string, message: string) => {
  (errors[field] ??= []).push(message);
};

/** "access_level" → "Access level", as Rails' full_messages name an attribute. */
export const humanAttribute = (attribute: string) => {
  const words = attribute.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * Rails' `errors.full_messages.first`: the first attribute's first message after its human name
 * ("Access level is not included in the list"), or undefined without errors.
 */
export function firstFullMessage(errors: FieldErrors): string | undefined {
  const first = Object.entries(errors)[0];
  return first && `${humanAttribute(first[0])} ${first[1][0]}`;
}
