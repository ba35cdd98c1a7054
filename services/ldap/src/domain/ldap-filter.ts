/**
 * Whether a string parses as an LDAP search filter (RFC 4515), as GitLab's `ldap_filter` validator
 * asks Net::LDAP::Filter to construct one. A filter must be parenthesised, or a bare `attr=value`
 * item (Net::LDAP accepts that form too); `&`, `|` and `!` combine filters; an item is an attribute
 * description, an operator (=, ~=, >=, <=, or =* for presence) and an escaped value (`\XX` escapes
 * only; a literal `(`, `)` or `\` not so escaped is an error).
 */
export function isValidLdapFilter(text: string): boolean {
  const s = text.trim();
  if (!s) return false;
  if (!s.startsWith("(")) return item(s);
  let pos = 0;
  const fail = () => {
    throw new Error("invalid");
  };

  const filter = (): void => {
    if (s[pos] !== "(") fail();
    pos++;
    while (s[pos] === " ") pos++;
    const op = s[pos];
    if (op === "&" || op === "|") {
      pos++;
      while (s[pos] === " ") pos++;
      if (s[pos] !== "(") fail();
      while (s[pos] === "(") {
        filter();
        while (s[pos] === " ") pos++;
      }
    } else if (op === "!") {
      pos++;
      while (s[pos] === " ") pos++;
      filter();
      while (s[pos] === " ") pos++;
    } else {
      const start = pos;
      while (pos < s.length && s[pos] !== ")") {
        if (s[pos] === "\\") pos += 2;
        else pos++;
      }
      if (!item(s.slice(start, pos))) fail();
    }
    if (s[pos] !== ")") fail();
    pos++;
  };

  try {
    filter();
    return pos === s.length;
  } catch {
    return false;
  }
}

const ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)+)(?:;[A-Za-z0-9-]+)*$/;
const EXTENSIBLE = /^(?:[A-Za-z][A-Za-z0-9-;]*)?(?::dn)?(?::[A-Za-z0-9.-]+)?:$/;

/** `attr=value`, `attr~=value`, `attr>=value`, `attr<=value`, `attr=*`, substrings, extensible. */
function item(text: string): boolean {
  const eq = text.indexOf("=");
  if (eq <= 0) return false;
  let attr = text.slice(0, eq);
  const value = text.slice(eq + 1);
  if (attr.endsWith("~") || attr.endsWith(">") || attr.endsWith("<")) attr = attr.slice(0, -1);
  const attrOk = ATTRIBUTE.test(attr) || (attr.endsWith(":") && EXTENSIBLE.test(attr));
  return attrOk && validValue(value);
}

function validValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "(" || c === ")") return false;
    if (c === "\\") {
      if (!/^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) return false;
      i += 2;
    }
  }
  return true;
}
