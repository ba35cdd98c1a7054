import { PresenceFilter, SubstringFilter, type Entry } from "ldapts";
import { normalizeDn } from "./dn";
import type { LdapDirectory } from "./directory";
import { anyOf, equals } from "./filter";
import { valuesOf, type LdapPerson } from "./person";

/**
 * Directory groups as GitLab's sync reads them (ee/lib/ee/gitlab/auth/ldap/group.rb): a group is
 * found by cn under `group_base`, and its members are the DNs of `member`, else `uniqueMember`, else
 * `memberOf`, plus any `submember`, normalized, without duplicates. A posixGroup names its members
 * by uid (`memberUid`) instead; resolving those to DNs is the caller's (it may know them already).
 */
export interface LdapGroup {
  /** Normalized. */
  dn: string;
  cn: string;
  memberDns: string[];
  memberUids: string[];
}

export const GROUP_ATTRIBUTES = ["cn", "memberuid", "member", "submember", "uniquemember", "memberof"];

export async function findGroupByCn(directory: LdapDirectory, cn: string): Promise<LdapGroup | undefined> {
  const { groupBase } = directory.server;
  if (!groupBase || !cn) return undefined;
  const [entry] = await directory.search(groupBase, {
    scope: "sub",
    filter: equals("cn", cn),
    attributes: GROUP_ATTRIBUTES,
  });
  if (!entry) return undefined;
  const group = await groupOfEntry(directory, entry, ["member", "uniqueMember", "memberOf"]);
  return { ...group, cn: group.cn || cn };
}

/**
 * The group an entry read with GROUP_ATTRIBUTES is: its members are the first of `memberAttributes`
 * that has values (ranges followed), plus any `submember`. Active Directory's nested groups are read
 * with `member` and `uniqueMember` only: their `memberOf` names their parents, not members.
 */
export async function groupOfEntry(
  directory: LdapDirectory,
  entry: Entry,
  memberAttributes: string[],
): Promise<LdapGroup> {
  let memberDns: string[] = [];
  for (const attribute of memberAttributes) {
    memberDns = await allValues(directory, entry, attribute);
    if (memberDns.length) break;
  }
  const dns = [...memberDns, ...valuesOf(entry, "submember")].map(normalizeDn);
  return {
    dn: normalizeDn(entry.dn),
    cn: valuesOf(entry, "cn")[0] ?? "",
    memberDns: [...new Set(dns)],
    memberUids: [...new Set(valuesOf(entry, "memberUid"))],
  };
}

const RANGE = /^([^;]+);range=(\d+)-(\d+|\*)$/i;

/**
 * An attribute's values, following Active Directory's ranged retrieval: a group with more members
 * than the server's page answers `member;range=0-1499` and the rest must be read range by range.
 */
async function allValues(directory: LdapDirectory, entry: Entry, attribute: string): Promise<string[]> {
  const values = valuesOf(entry, attribute);
  let ranged = rangedPart(entry, attribute);
  while (ranged) {
    values.push(...ranged.values);
    if (ranged.end === "*") break;
    const [next] = await directory.search(entry.dn, {
      scope: "base",
      attributes: [`${attribute};range=${Number(ranged.end) + 1}-*`],
    });
    ranged = next ? rangedPart(next, attribute) : undefined;
  }
  return values;
}

function rangedPart(entry: Entry, attribute: string) {
  for (const key of Object.keys(entry)) {
    const match = RANGE.exec(key);
    if (match && match[1]!.toLowerCase() === attribute.toLowerCase())
      return { values: valuesOf(entry, key), end: match[3]! };
  }
  return undefined;
}

export async function listGroupCns(
  directory: LdapDirectory,
  search: string,
  limit: number,
): Promise<string[]> {
  const { groupBase } = directory.server;
  if (!groupBase) return [];
  const filter = search
    ? new SubstringFilter({ attribute: "cn", initial: search, any: [], final: "" })
    : new PresenceFilter({ attribute: "cn" });
  const entries = await directory.search(groupBase, {
    scope: "sub",
    filter,
    attributes: ["cn"],
    sizeLimit: limit,
  });
  return entries.flatMap((e) => valuesOf(e, "cn").slice(0, 1));
}

export async function groupCnsOf(directory: LdapDirectory, person: LdapPerson): Promise<string[]> {
  const { groupBase } = directory.server;
  if (!groupBase) return [];
  const entries = await directory.search(groupBase, {
    scope: "sub",
    filter: anyOf(
      equals("member", person.rawDn),
      equals("uniqueMember", person.rawDn),
      equals("memberUid", person.uid),
    ),
    attributes: ["cn"],
  });
  return entries.flatMap((e) => valuesOf(e, "cn").slice(0, 1));
}
