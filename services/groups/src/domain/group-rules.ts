import { addFieldError, PROJECT_WILDCARD_ROUTES, type FieldErrors } from "@canopy/kit";

/**
 * GitLab's validation of a group's name and path (reference §5; lib/gitlab/path_regex.rb,
 * app/models/namespace.rb). Each check returns GitLab's messages keyed by attribute, in its order.
 * Below a parent, a group takes the same reserved words as a project (the kit's gitlab/).
 */
const NAME_FORMAT = /^[\p{L}\p{M}\p{N}\u00A9-\u{1F9FF}_][\p{L}\p{M}\p{N}\p{Pd}\u00A9-\u{1F9FF}_(). ]*$/u;
const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";
const HTML_MESSAGE = "cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).";
/** What an HTML sanitizer would strip: a tag, a comment or a processing instruction. */
const LOOKS_LIKE_HTML = /<\s*[/!?]?\s*[\p{L}]|<[^<>]*>/u;

const PATH_FORMAT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
const PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Top-level routes GitLab keeps for itself (doc/user/reserved_names.md and older lists). */
const RESERVED_TOP_LEVEL = new Set([
  "-",
  ".well-known",
  "404.html",
  "422.html",
  "500.html",
  "502.html",
  "503.html",
  "admin",
  "api",
  "apple-touch-icon-precomposed.png",
  "apple-touch-icon.png",
  "assets",
  "dashboard",
  "deploy.html",
  "explore",
  "favicon.ico",
  "favicon.png",
  "files",
  "groups",
  "health_check",
  "help",
  "import",
  "jwt",
  "login",
  "oauth",
  "profile",
  "projects",
  "public",
  "robots.txt",
  "s",
  "search",
  "sitemap",
  "sitemap.xml",
  "sitemap.xml.gz",
  "slash-command-logo.png",
  "snippets",
  "unsubscribes",
  "uploads",
  "users",
  "v2",
  "abuse_reports",
  "autocomplete",
  "invites",
  "sent_notifications",
  "u",
  "ci",
  "notification_settings",
]);

export const MAX_NESTING = 20;

/** Name rules; the format is checked only when the name is new or changes (as GitLab does). */
export function nameErrors(name: string | undefined, errors: FieldErrors = {}): FieldErrors {
  if (name === undefined) return errors;
  if (name.trim() === "") addFieldError(errors, "name", "can't be blank");
  if ([...name].length > 255) addFieldError(errors, "name", "is too long (maximum is 255 characters)");
  if (LOOKS_LIKE_HTML.test(name)) addFieldError(errors, "name", HTML_MESSAGE);
  if (name !== "" && !NAME_FORMAT.test(name)) addFieldError(errors, "name", NAME_FORMAT_MESSAGE);
  return errors;
}

/** Path rules for a group at the top (`topLevel`) or below a parent. */
export function pathErrors(
  path: string | undefined,
  topLevel: boolean,
  errors: FieldErrors = {},
): FieldErrors {
  if (path === undefined) return errors;
  if (path.trim() === "") addFieldError(errors, "path", "can't be blank");
  if (path.length > 255) addFieldError(errors, "path", "is too long (maximum is 255 characters)");
  if (path.length > 0 && path.length < 2)
    addFieldError(errors, "path", "is too short (minimum is 2 characters)");
  const badFormat = !PATH_FORMAT.test(path) || path.endsWith(".") || /\.(git|atom)$/i.test(path);
  if (path !== "" && badFormat) addFieldError(errors, "path", PATH_FORMAT_MESSAGE);
  const reserved = topLevel ? RESERVED_TOP_LEVEL : PROJECT_WILDCARD_ROUTES;
  if (reserved.has(path.toLowerCase())) addFieldError(errors, "path", `${path} is a reserved name`);
  return errors;
}

export function descriptionErrors(description: string | undefined, errors: FieldErrors = {}): FieldErrors {
  if (description !== undefined && [...description].length > 255)
    addFieldError(errors, "description", "is too long (maximum is 255 characters)");
  return errors;
}

export const TAKEN = "has already been taken";
