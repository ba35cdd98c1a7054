import type { Entry } from "ldapts";
import type { LdapServer } from "./config";
import { normalizeDn } from "./dn";

/**
 * A person in the directory, read as GitLab reads one (lib/gitlab/auth/ldap/person.rb and
 * auth_hash.rb): each field comes from the first configured attribute that has a value.
 */
export interface LdapPerson {
  provider: string;
  /** The DN as the directory spells it: what to bind as. */
  rawDn: string;
  /** Normalized: an identity's `extern_uid`. */
  dn: string;
  /** The value of the server's `uid` attribute. */
  uid: string;
  /** The username a new user gets (lower-cased when `lowercase_usernames`). */
  username: string;
  /** Every address of the first email attribute present; `email` is the first. */
  emails: string[];
  email?: string;
  name: string;
  firstName?: string;
  lastName?: string;
}

/** The attributes to ask for, so a person can be read in one search. */
export function personAttributeNames(server: LdapServer): string[] {
  const a = server.attributes;
  const names = [server.uid, ...a.username, ...a.email, ...a.name, ...a.firstName, ...a.lastName];
  return [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
}

/** All values of an attribute, its name matched case-insensitively (servers answer in their own case). */
export function valuesOf(entry: Entry, attribute: string): string[] {
  const wanted = attribute.toLowerCase();
  const key = Object.keys(entry).find((k) => k.toLowerCase() === wanted && k !== "dn");
  if (!key) return [];
  const value = entry[key];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map((v) => (Buffer.isBuffer(v) ? v.toString("utf8") : String(v))).filter((v) => v !== "");
}

const firstPresent = (entry: Entry, attributes: string[]): string[] => {
  for (const attribute of attributes) {
    const values = valuesOf(entry, attribute);
    if (values.length) return values;
  }
  return [];
};

/** The entry as a person; undefined when it lacks the `uid` attribute (GitLab skips such entries). */
export function toPerson(server: LdapServer, entry: Entry): LdapPerson | undefined {
  const uid = valuesOf(entry, server.uid)[0];
  if (!uid) return undefined;
  const a = server.attributes;
  let username = firstPresent(entry, a.username)[0] ?? uid;
  if (server.lowercaseUsernames) username = username.toLowerCase();
  const emails = firstPresent(entry, a.email);
  const firstName = firstPresent(entry, a.firstName)[0];
  const lastName = firstPresent(entry, a.lastName)[0];
  const fullName = [firstName, lastName].filter(Boolean).join(" ");
  const name = (firstPresent(entry, a.name)[0] ?? fullName).trim() || username;
  return {
    provider: server.provider,
    rawDn: entry.dn,
    dn: normalizeDn(entry.dn),
    uid,
    username,
    emails,
    email: emails[0],
    name,
    firstName,
    lastName,
  };
}
