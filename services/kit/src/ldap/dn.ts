/**
 * Distinguished names as GitLab compares them (lib/gitlab/auth/ldap/dn.rb): an identity's
 * `extern_uid` is the *normalized* DN, and sync matches group members to identities by it, so the
 * same entry must always normalize to the same string whichever way the directory spelled it.
 *
 * Normalizing parses the DN (RFC 4514: escapes `\,` and `\2c`, quoted values, `#hex` values,
 * spaces around names and values), rebuilds it with each value escaped the one canonical way, and
 * lower-cases the whole. A DN that cannot be parsed (malformed, or a multi-valued RDN `a=1+b=2`) is
 * returned unchanged, as GitLab does.
 */

export class DnFormatError extends Error {
  override readonly name = "DnFormatError";
}

const HEX = /^[0-9a-fA-F]$/;
const KEY_START = /^[a-zA-Z]$/;
const KEY_CHAR = /^[a-zA-Z0-9\- ]$/;
const OID_CHAR = /^[0-9. ]$/;

/** The (attribute, value) pairs of a DN, values unescaped. Throws DnFormatError. */
export function parseDn(dn: string): [string, string][] {
  if (dn === "") return [];
  const pairs: [string, string][] = [];
  type State =
    | "key"
    | "keyNormal"
    | "keyOid"
    | "value"
    | "valueNormal"
    | "valueEscape"
    | "valueEscapeHex"
    | "quoted"
    | "quotedEscape"
    | "quotedEscapeHex"
    | "hexstring"
    | "hexstringHex"
    | "valueEnd";
  let state: State = "key";
  let key = "";
  let value: number[] = [];
  let hexHigh = "";
  const chars = [...dn];
  let offset = 0; // in UTF-16 units, for looking back at escapes
  const text = (s: string) => value.push(...Buffer.from(s));
  const finish = (at: number) => {
    pairs.push([key.trim(), rstripUnlessEscaped(Buffer.from(value).toString("utf8"), dn.slice(0, at))]);
    key = "";
    value = [];
  };
  const endPair = () => {
    finish(offset);
    state = "key";
  };
  for (const c of chars) {
    switch (state) {
      case "key":
        if (KEY_START.test(c) || /[0-9]/.test(c)) {
          key += c;
          state = KEY_START.test(c) ? "keyNormal" : "keyOid";
        } else if (c !== " ")
          throw new DnFormatError(`unrecognized first character of an attribute name "${c}"`);
        break;
      case "keyNormal":
      case "keyOid":
        if (c === "=") state = "value";
        else if ((state === "keyNormal" ? KEY_CHAR : OID_CHAR).test(c)) key += c;
        else throw new DnFormatError(`unrecognized attribute name character "${c}"`);
        break;
      case "value":
        if (c === "\\") state = "valueEscape";
        else if (c === '"') state = "quoted";
        else if (c === "#") {
          text(c);
          state = "hexstring";
        } else if (c === ",") endPair();
        else if (c !== " ") {
          text(c);
          state = "valueNormal";
        }
        break;
      case "valueNormal":
        if (c === "\\") state = "valueEscape";
        else if (c === ",") endPair();
        else if (c === "+") throw new DnFormatError("multi-valued RDNs are not supported");
        else text(c);
        break;
      case "valueEscape":
      case "quotedEscape":
        if (HEX.test(c)) {
          hexHigh = c;
          state = state === "valueEscape" ? "valueEscapeHex" : "quotedEscapeHex";
        } else {
          text(c);
          state = state === "valueEscape" ? "valueNormal" : "quoted";
        }
        break;
      case "valueEscapeHex":
      case "quotedEscapeHex":
        if (!HEX.test(c)) throw new DnFormatError(`invalid escaped hex code "\\${hexHigh}${c}"`);
        value.push(parseInt(hexHigh + c, 16));
        state = state === "valueEscapeHex" ? "valueNormal" : "quoted";
        break;
      case "quoted":
        if (c === "\\") state = "quotedEscape";
        else if (c === '"') state = "valueEnd";
        else text(c);
        break;
      case "hexstring":
        if (HEX.test(c)) {
          text(c);
          state = "hexstringHex";
        } else if (c === " ") state = "valueEnd";
        else if (c === ",") endPair();
        else throw new DnFormatError(`expected a hex pair, got "${c}"`);
        break;
      case "hexstringHex":
        if (!HEX.test(c)) throw new DnFormatError(`expected the second character of a hex pair, got "${c}"`);
        text(c);
        state = "hexstring";
        break;
      case "valueEnd":
        if (c === ",") endPair();
        else if (c !== " ") throw new DnFormatError(`expected the end of a value, got "${c}"`);
        break;
    }
    offset += c.length;
  }
  if (!["value", "valueNormal", "hexstring", "valueEnd"].includes(state))
    throw new DnFormatError("DN ended unexpectedly");
  finish(dn.length);
  return pairs;
}

/**
 * Trailing spaces of a value are dropped unless escaped; of a run of spaces after a backslash only
 * the escaped one stays (GitLab's `rstrip_except_escaped`).
 */
function rstripUnlessEscaped(value: string, before: string): string {
  if (!/\s$/.test(value)) return value;
  const escaped = /\\(\s+)$/.exec(before);
  return escaped ? value.slice(0, value.length - (escaped[1]!.length - 1)) : value.trimEnd();
}

/** RFC 4514 escaping of one value, the canonical way (only what must be escaped). */
export function escapeDnValue(value: string): string {
  return value
    .replace(/^ |^#| $|[,+"\\<>;=]/g, (c) => `\\${c}`)
    .replace(/\n/g, "\\0a")
    .replace(/\r/g, "\\0d");
}

/** A DN from (attribute, value) pairs, values escaped. */
export const buildDn = (pairs: [string, string][]) =>
  pairs.map(([key, value]) => `${key}=${escapeDnValue(value)}`).join(",");

/** The normalized form of a DN (see the header); the DN itself when it cannot be parsed. */
export function normalizeDn(dn: string): string {
  try {
    return buildDn(parseDn(dn)).toLowerCase();
  } catch (e) {
    if (e instanceof DnFormatError) return dn;
    throw e;
  }
}

/** A single value (a uid) normalized as a DN value is: trimmed, unescaped, re-escaped, lower-cased. */
export function normalizeDnValue(value: string): string {
  const normalized = normalizeDn(`placeholder=${value}`);
  return normalized.startsWith("placeholder=") ? normalized.slice("placeholder=".length) : value;
}

/** Whether a DN parses (for validating configuration). */
export function isValidDn(dn: string): boolean {
  try {
    parseDn(dn);
    return true;
  } catch {
    return false;
  }
}
