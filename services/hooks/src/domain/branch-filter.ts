import { re2SyntaxError } from "@canopy/kit";
import { RE2JS } from "re2js";

/**
 * Push branch filters (app/validators/web_hooks/wildcard_branch_filter_validator.rb,
 * app/validators/untrusted_regexp_validator.rb, app/models/hooks/active_hook_filter.rb). Regex
 * filters are only ever compiled by RE2 (re2js, a linear-time engine): a user's pattern never
 * reaches JavaScript's backtracking RegExp.
 */
export const STRATEGIES = ["wildcard", "regex", "all_branches"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const MAX_WILDCARD_FILTER = 4000;

/** Rails' String#squish: trimmed, each run of whitespace one space. */
export const squish = (s: string) => s.trim().replace(/\s+/g, " ");

/**
 * Gitlab::GitRefValidator.validate of `name` as a branch (libgit2's reference name rules for
 * `refs/heads/<name>`, plus GitLab's refused prefixes and HEAD).
 */
export function validBranchName(name: string): boolean {
  if (!name) return false;
  if (["refs/heads/", "refs/remotes/", "-"].some((p) => name.startsWith(p)) || name === "HEAD") return false;
  if (name === "@" || name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  if (name.endsWith("/") || name.endsWith(".")) return false;
  // Control characters, space, DEL and the characters git refuses in ref names.
  if ([...name].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (/[~^:?*[\\]/.test(name)) return false;
  return name.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}

/** The filter's errors for its strategy (GitLab's validators' messages). */
export function branchFilterErrors(filter: string | null, strategy: Strategy): string[] {
  if (filter === null || strategy === "all_branches") return [];
  if (strategy === "regex") {
    const problem = re2SyntaxError(filter);
    return problem ? [`not valid RE2 syntax: ${problem}`] : [];
  }
  const errors: string[] = [];
  const withoutWildcards = filter.replaceAll("*", "x");
  if (withoutWildcards.trim() === "") return [];
  if (!validBranchName(withoutWildcards)) errors.push("is not a valid branch name");
  if (filter.length > MAX_WILDCARD_FILTER)
    errors.push(`is longer than the allowed length of ${MAX_WILDCARD_FILTER} characters.`);
  return errors;
}

/** Whether a push to `branch` passes the hook's filter (ActiveHookFilter). Blank filters pass all. */
export function branchMatches(filter: string | null, strategy: Strategy, branch: string): boolean {
  if (strategy === "all_branches" || !filter) return true;
  if (strategy === "regex") {
    try {
      return RE2JS.compile(filter).matcher(branch).find();
    } catch {
      return false;
    }
  }
  if (!filter.includes("*")) return filter === branch;
  // Quoted literals joined by `.*`, compiled by RE2: linear however many stars the filter has.
  const pattern = `(?s)^${filter
    .split("*")
    .map((p) => RE2JS.quote(p))
    .join(".*")}$`;
  return RE2JS.compile(pattern).matcher(branch).find();
}
