import { RE2JS, RE2JSSyntaxException } from "re2js";

/**
 * RE2's own error wording (what GitLab's re2 gem reports, app/validators/untrusted_regexp_validator.rb)
 * for each of re2js's parser errors, so that "not valid RE2 syntax: <detail>" reads as GitLab's does.
 * Patterns are only ever compiled by RE2 (re2js, a linear-time engine): a user's pattern never
 * reaches JavaScript's backtracking RegExp.
 */
const RE2_WORDING: Record<string, string> = {
  "invalid or unsupported Perl syntax": "invalid perl operator",
  "missing closing )": "missing )",
  "unexpected )": "unexpected )",
  "missing closing ]": "missing ]",
  "invalid escape sequence": "invalid escape sequence",
  "invalid character class": "invalid character class",
  "invalid character class range": "invalid character class range",
  "missing argument to repetition operator": "no argument for repetition operator",
  "invalid repeat count": "invalid repetition size",
  "invalid nested repetition operator": "bad repetition operator",
  "trailing backslash at end of expression": "trailing \\",
  "invalid named capture": "invalid named capture group",
  "duplicate capture group name": "invalid named capture group",
  "invalid UTF-8": "invalid UTF-8",
};
const TOO_LARGE = "pattern too large - compile failed";

/** Why `pattern` is not RE2 syntax (RE2's wording), or undefined when it compiles. */
export function re2SyntaxError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException)) return TOO_LARGE;
    const text = RE2_WORDING[err.error] ?? (/large|deep/.test(err.error) ? TOO_LARGE : err.error);
    return err.input ? `${text}: ${err.input}` : text;
  }
}
