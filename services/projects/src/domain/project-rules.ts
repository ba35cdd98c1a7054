import { addFieldError, PROJECT_WILDCARD_ROUTES, type FieldErrors } from "@canopy/kit";

/**
 * GitLab's validation of a project's name and path (app/models/project.rb, lib/gitlab/regex.rb,
 * lib/gitlab/path_regex.rb). Each check adds GitLab's messages keyed by attribute, in its order.
 */
const NAME_FORMAT = /^[\p{L}\p{M}\p{N}\u00A9-\u{1F9FF}_][\p{L}\p{M}\p{N}\p{Pd}\u00A9-\u{1F9FF}_. ]*$/u;
export const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";

const PATH_FORMAT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
export const PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

export const TAKEN = "has already been taken";

export function nameErrors(name: string | undefined, errors: FieldErrors = {}): FieldErrors {
  if (name === undefined) return errors;
  if (name.trim() === "") addFieldError(errors, "name", "can't be blank");
  if ([...name].length > 255) addFieldError(errors, "name", "is too long (maximum is 255 characters)");
  if (name !== "" && !NAME_FORMAT.test(name)) addFieldError(errors, "name", NAME_FORMAT_MESSAGE);
  return errors;
}

export function pathErrors(path: string | undefined, errors: FieldErrors = {}): FieldErrors {
  if (path === undefined) return errors;
  if (path.trim() === "") addFieldError(errors, "path", "can't be blank");
  if (path.length > 255) addFieldError(errors, "path", "is too long (maximum is 255 characters)");
  if (path !== "" && (!PATH_FORMAT.test(path) || /\.(git|atom)$/i.test(path)))
    addFieldError(errors, "path", PATH_FORMAT_MESSAGE);
  if (PROJECT_WILDCARD_ROUTES.has(path.toLowerCase()))
    addFieldError(errors, "path", `${path} is a reserved name`);
  return errors;
}

export function descriptionErrors(description: string | undefined, errors: FieldErrors = {}) {
  if (description !== undefined && [...description].length > 2000)
    addFieldError(errors, "description", "is too long (maximum is 2000 characters)");
  return errors;
}

/**
 * A path from a name when only the name is given (Rails' `parameterize`, as GitLab's
 * Projects::CreateService does): lower case, every run of other characters one dash, no dash at
 * either end.
 */
export function pathFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** "<level> is not allowed in a <group level> group." (Project#visibility_level_allowed_by_group). */
export const visibilityNotAllowedInGroup = (level: string, groupLevel: string) =>
  `${level} is not allowed in a ${groupLevel} group.`;
