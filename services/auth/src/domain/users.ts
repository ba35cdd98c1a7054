import type { auth } from "@canopy/protos";

/**
 * GitLab's model validations for a user, with its messages. Returns errors keyed by attribute
 * (`{"username":["is too long (maximum is 255 characters)"]}`); empty when valid.
 */
type Attributes = auth.UserAttributes;
type Errors = Record<string, string[]>;

// GitLab's namespace path rule (Gitlab::PathRegex).
const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;
const USERNAME_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
// Deliberately simple: one @, no spaces, a dot in the domain. Real validation is a confirmation mail.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const RESERVED_USERNAMES = new Set([
  "api",
  "oauth",
  "users",
  "groups",
  "admin",
  "-",
  "help",
  "dashboard",
  "profile",
  "explore",
  "uploads",
  "assets",
]);

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function validateUser(a: Attributes, creating: boolean): Errors {
  const errors: Errors = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  const required = (attr: keyof Attributes, value: string | undefined) => {
    if (creating && (value === undefined || value.trim() === "")) add(attr, "can't be blank");
    else if (value !== undefined && value.trim() === "") add(attr, "can't be blank");
  };
  required("username", a.username);
  required("email", a.email);
  required("name", a.name);
  if (a.username) {
    if (a.username.length > 255) add("username", "is too long (maximum is 255 characters)");
    if (!USERNAME.test(a.username) || /\.(git|atom)$/i.test(a.username)) add("username", USERNAME_MESSAGE);
    else if (RESERVED_USERNAMES.has(a.username.toLowerCase()))
      add("username", `${a.username} is a reserved name`);
  }
  if (a.email && (a.email.length > 255 || !EMAIL.test(a.email))) add("email", "is invalid");
  if (a.publicEmail && !EMAIL.test(a.publicEmail)) add("public_email", "is invalid");
  if (a.name && a.name.length > 255) add("name", "is too long (maximum is 255 characters)");
  if (a.password !== undefined) {
    if (a.password.length < PASSWORD_MIN)
      add("password", `is too short (minimum is ${PASSWORD_MIN} characters)`);
    if (a.password.length > PASSWORD_MAX)
      add("password", `is too long (maximum is ${PASSWORD_MAX} characters)`);
  }
  for (const attr of ["bio", "location", "websiteUrl", "organization", "jobTitle", "note"] as const) {
    const value = a[attr];
    const max = attr === "bio" ? 255 : attr === "note" ? 1000 : 255;
    if (value && value.length > max) add(snake(attr), `is too long (maximum is ${max} characters)`);
  }
  if (a.projectsLimit !== undefined && (a.projectsLimit < 0 || a.projectsLimit > 2147483647)) {
    add("projects_limit", "must be greater than or equal to 0");
  }
  for (const [attr, value] of Object.entries(a)) {
    if (typeof value === "string" && value.includes("\u0000")) add(snake(attr), "cannot contain null bytes");
  }
  return errors;
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const isReservedUsername = (username: string) => RESERVED_USERNAMES.has(username.toLowerCase());

/**
 * A username made from what a directory or provider calls someone, as GitLab's
 * `Namespace.clean_path` makes it: the part before any `@`, only allowed characters, no trailing
 * `.git`, `.atom` or `.`, no leading `-`; "blank" when nothing is left.
 */
export function cleanUsername(raw: string): string {
  let path = raw.replace(/@.*$/s, "").replace(/[^a-zA-Z0-9_.-]/g, "");
  for (let previous = ""; previous !== path;) {
    previous = path;
    path = path
      .replace(/\.git$/, "")
      .replace(/\.atom$/, "")
      .replace(/\.$/, "");
  }
  path = path.replace(/^-+/, "").slice(0, 255);
  return path || "blank";
}
