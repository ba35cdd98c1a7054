import { re2SyntaxError, type FieldErrors } from "@canopy/kit";

/**
 * GitLab's push-rule model rules (ee/app/models/concerns/push_ruleable.rb, push_rule.rb and
 * app/validators/untrusted_regexp_validator.rb). Patterns are only ever compiled by RE2 (re2js, a
 * linear-time engine): a user's pattern never reaches JavaScript's backtracking RegExp.
 */

/** The regex attributes in the order GitLab validates them (its errors hash keeps that order). */
export const REGEX_ATTRIBUTES = [
  "commit_message_regex",
  "author_email_regex",
  "file_name_regex",
  "branch_name_regex",
  "commit_message_negative_regex",
] as const;
export type RegexAttribute = (typeof REGEX_ATTRIBUTES)[number];

const MAX_LENGTH: Record<RegexAttribute, number> = {
  commit_message_regex: 511,
  author_email_regex: 511,
  file_name_regex: 511,
  branch_name_regex: 511,
  commit_message_negative_regex: 2047,
};

/** max_file_size is a PostgreSQL integer (megabytes); 0 means no limit. */
export const MAX_FILE_SIZE = 2_147_483_647;

/** The keys GitLab licenses separately (ultimate): sending one on a lower plan is 403. */
export const GATED_KEYS = [
  "commit_committer_check",
  "commit_committer_name_check",
  "reject_unsigned_commits",
  "reject_non_dco_commits",
] as const;

/**
 * Keys that fall back to the instance-level push rule when stored as null; writing false while that
 * rule is off stores null. Canopy has no instance-level rule, so it behaves as a GitLab whose
 * instance rule exists with every check off: false is stored as null and null reads as false.
 */
export const INSTANCE_FALLBACK_KEYS = new Set([
  "commit_committer_check",
  "reject_unsigned_commits",
  "reject_non_dco_commits",
]);

/** A push rule's stored attributes, as the model holds them (null: unset or "fall back"). */
export interface PushRuleValues {
  commit_message_regex: string | null;
  commit_message_negative_regex: string | null;
  branch_name_regex: string | null;
  author_email_regex: string | null;
  file_name_regex: string | null;
  deny_delete_tag: boolean;
  member_check: boolean;
  prevent_secrets: boolean;
  max_file_size: number;
  commit_committer_check: boolean | null;
  commit_committer_name_check: boolean | null;
  reject_unsigned_commits: boolean | null;
  reject_non_dco_commits: boolean | null;
}

export const EMPTY_PUSH_RULE: PushRuleValues = {
  commit_message_regex: null,
  commit_message_negative_regex: null,
  branch_name_regex: null,
  author_email_regex: null,
  file_name_regex: null,
  deny_delete_tag: false,
  member_check: false,
  prevent_secrets: false,
  max_file_size: 0,
  commit_committer_check: null,
  commit_committer_name_check: null,
  reject_unsigned_commits: null,
  reject_non_dco_commits: null,
};

/** Applies the attributes a request sent (undefined: not sent) with the model's write rules. */
export function applyChanges(current: PushRuleValues, sent: Partial<PushRuleValues>): PushRuleValues {
  const next: PushRuleValues = { ...current };
  for (const [key, value] of Object.entries(sent) as [keyof PushRuleValues, unknown][]) {
    if (value === undefined) continue;
    const stored = INSTANCE_FALLBACK_KEYS.has(key) && value === false ? null : value;
    (next as unknown as Record<string, unknown>)[key] = stored;
  }
  return next;
}

/** The model's validations over the whole rule, keyed and ordered as GitLab's errors hash. */
export function pushRuleErrors(rule: PushRuleValues): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (!Number.isInteger(rule.max_file_size)) add("max_file_size", "must be an integer");
  else if (rule.max_file_size < 0) add("max_file_size", "must be greater than or equal to 0");
  else if (rule.max_file_size > MAX_FILE_SIZE)
    add("max_file_size", `must be less than or equal to ${MAX_FILE_SIZE}`);
  for (const key of REGEX_ATTRIBUTES) {
    const pattern = rule[key];
    const problem = pattern === null ? undefined : re2SyntaxError(pattern);
    if (problem) add(key, `not valid RE2 syntax: ${problem}`);
  }
  for (const key of REGEX_ATTRIBUTES) {
    const pattern = rule[key];
    // Rails counts characters, not UTF-16 units.
    if (pattern !== null && [...pattern].length > MAX_LENGTH[key])
      add(key, `is too long (maximum is ${MAX_LENGTH[key]} characters)`);
  }
  return errors;
}
