import { AndFilter, EqualityFilter, FilterParser, OrFilter, type Filter } from "ldapts";

/**
 * LDAP filters. A value a user typed never passes through a filter *string*: it goes into a filter
 * object (EqualityFilter, SubstringFilter), which the client encodes as an octet string on the wire,
 * so `*`, `(`, `)`, `\` and NUL in it are only characters, never filter syntax. Filter strings are
 * parsed only from configuration (`user_filter`) and from stored filter links, which administrators
 * and group owners write as filters on purpose.
 */

/**
 * Parses a filter as GitLab's `Net::LDAP::Filter.construct` accepts it: the outer parentheses may
 * be left out (`objectClass=person`). Undefined when it is not a valid filter.
 */
export function parseLdapFilter(text: string): Filter | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const wrapped = trimmed.startsWith("(") ? trimmed : `(${trimmed})`;
  try {
    const filter = FilterParser.parseString(wrapped);
    // The parser stops after the first complete filter: "(a=1)(b=2)" must not pass as "(a=1)".
    return balanced(wrapped) ? filter : undefined;
  } catch {
    return undefined;
  }
}

/** Parentheses (outside escapes) close exactly at the end of the text. */
function balanced(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0 && i !== text.length - 1) return false;
  }
  return depth === 0;
}

/** `(attribute=value)` with the value taken literally. */
export const equals = (attribute: string, value: string): Filter => new EqualityFilter({ attribute, value });

/** Every filter given (undefined ones left out) must match; one filter stays itself, none is undefined. */
export function allOf(...filters: (Filter | undefined)[]): Filter | undefined {
  const present = filters.filter((f): f is Filter => f !== undefined);
  if (present.length <= 1) return present[0];
  return new AndFilter({ filters: present });
}

export const anyOf = (...filters: Filter[]): Filter =>
  filters.length === 1 ? filters[0]! : new OrFilter({ filters });

/**
 * RFC 4515 escaping of a value for a filter *string* (`*`, `(`, `)`, `\`, NUL), for the places that
 * must build one; prefer `equals` and filter objects.
 */
export function escapeLdapFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
