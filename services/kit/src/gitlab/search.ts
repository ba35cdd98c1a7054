/**
 * GitLab's search words (lib/gitlab/sql/pattern.rb), as pure rules: the query is squished (trimmed,
 * inner whitespace collapsed), split on spaces with `"quoted phrases"` kept whole (quotes dropped),
 * and every term of at least 3 characters must occur somewhere in the column (ILIKE %term%, AND).
 * When no term is that long, the whole query must equal the column, case-insensitively.
 */

/** Terms shorter than this are dropped (MIN_CHARS_FOR_PARTIAL_MATCHING). */
export const MIN_PARTIAL_MATCH = 3;

/** A quoted phrase standing alone between spaces or the ends of the query (REGEX_QUOTED_TERM). */
const QUOTED_TERM = /(?<=^| )"[^"]+"(?= |$)/g;

export type SearchTerms =
  /** Every word must be a substring (case-insensitive). */
  | { words: string[]; exact?: undefined }
  /** The column must equal the whole query (case-insensitive). */
  | { exact: string; words?: undefined };

/** Ruby's String#squish: strip, then every run of whitespace becomes one space. */
export const squish = (s: string) => s.trim().replace(/\s+/g, " ");

/** The terms of a search, or undefined when it filters nothing (blank). */
export function searchTerms(query: string | undefined): SearchTerms | undefined {
  const squished = squish(query ?? "");
  if (!squished) return undefined;
  const quoted: string[] = [];
  const rest = squished.replace(QUOTED_TERM, (term) => {
    quoted.push(term.slice(1, -1));
    return "";
  });
  const terms = [...rest.split(" ").filter(Boolean), ...quoted];
  const words = terms.filter((t) => [...t].length >= MIN_PARTIAL_MATCH);
  return words.length ? { words } : { exact: squished };
}
