import { createHash, randomBytes } from "node:crypto";

/**
 * What a throwaway slapd starts with (see slapd.ts): a small company in `dc=example,dc=org` whose
 * people and groups cover every shape the LDAP code reads: inetOrgPerson people, a groupOfNames
 * (`member`), a groupOfUniqueNames (`uniqueMember`), a posixGroup (`memberUid`) and a group that
 * contains another group.
 */
export const SLAPD_BASE = "dc=example,dc=org";
export const SLAPD_PEOPLE_BASE = `ou=people,${SLAPD_BASE}`;
export const SLAPD_GROUP_BASE = `ou=groups,${SLAPD_BASE}`;
/** Writes everything (ACLs do not apply to it); the harness's own account. */
export const SLAPD_ADMIN_DN = `cn=admin,${SLAPD_BASE}`;
/** A read-only service account, what Canopy's `bind_dn` is in tests. */
export const SLAPD_READER_DN = `cn=reader,${SLAPD_BASE}`;

export interface SlapdPerson {
  uid: string;
  /** Defaults: cn "<Given> <Sn>", sn the uid capitalised, mail `<uid>@example.org`. */
  cn?: string;
  sn?: string;
  givenName?: string;
  /** `null` leaves the entry without a mail attribute. */
  mail?: string | null;
  password?: string;
  /** A sub-unit under ou=people (created when missing), e.g. "contractors". */
  ou?: string;
  /** Any other attribute of inetOrgPerson, e.g. `{ employeeType: "staff" }`. */
  extra?: Record<string, string | string[]>;
  /** An Active Directory-like slapd only: the AD logon name (default: the uid). */
  sAMAccountName?: string;
}

/** `group` is Active Directory's (an AD-like slapd only; see slapd-ad.ts). */
export type SlapdGroupKind = "groupOfNames" | "groupOfUniqueNames" | "posixGroup" | "group";

export interface SlapdGroup {
  cn: string;
  kind: SlapdGroupKind;
  /** DNs for groupOfNames/groupOfUniqueNames (a group DN nests that group); uids for posixGroup. */
  members: string[];
  gidNumber?: number;
}

/** The seeded people; everyone's password is `<uid>-password`. */
export const SEEDED_PEOPLE: SlapdPerson[] = [
  { uid: "alice", givenName: "Alice", sn: "Archer", extra: { employeeType: "staff" } },
  { uid: "bob", givenName: "Bob", sn: "Baker", extra: { employeeType: "staff" } },
  { uid: "carol", givenName: "Carol", sn: "Cooper", extra: { employeeType: "staff" } },
  { uid: "dave", givenName: "Dave", sn: "Dyer", extra: { employeeType: "contractor" } },
  { uid: "erin", givenName: "Erin", sn: "Evans", mail: null, extra: { employeeType: "staff" } },
  // A DN with characters that must be escaped, in a sub-unit.
  { uid: "frank", cn: "Frank, Jr.", givenName: "Frank", sn: "Fuller", ou: "contractors" },
];

export const personDn = (uid: string, ou?: string) =>
  `uid=${uid},${ou ? `ou=${ou},` : ""}${SLAPD_PEOPLE_BASE}`;
export const groupDn = (cn: string) => `cn=${cn},${SLAPD_GROUP_BASE}`;

export const SEEDED_GROUPS: SlapdGroup[] = [
  { cn: "developers", kind: "groupOfNames", members: [personDn("alice"), personDn("bob")] },
  { cn: "admins", kind: "groupOfUniqueNames", members: [personDn("carol")] },
  { cn: "ops", kind: "posixGroup", members: ["dave", "alice"], gidNumber: 5001 },
  // Nested: engineering holds the developers group and dave.
  { cn: "engineering", kind: "groupOfNames", members: [groupDn("developers"), personDn("dave")] },
];

export const defaultPassword = (uid: string) => `${uid}-password`;

/** `{SSHA}` as slappasswd makes it, so the directory holds no clear-text passwords. */
export function sshaPassword(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash("sha1").update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString("base64")}`;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The attributes of a person's entry, as an LDAP add takes them; on AD also a `user`. */
export function personAttributes(p: SlapdPerson, activeDirectory = false): Record<string, string | string[]> {
  const sn = p.sn ?? capitalised(p.uid);
  const givenName = p.givenName ?? capitalised(p.uid);
  const attributes: Record<string, string | string[]> = {
    objectClass: [
      "top",
      "person",
      "organizationalPerson",
      "inetOrgPerson",
      ...(activeDirectory ? ["user"] : []),
    ],
    uid: p.uid,
    cn: p.cn ?? `${givenName} ${sn}`,
    sn,
    givenName,
    userPassword: sshaPassword(p.password ?? defaultPassword(p.uid)),
    ...p.extra,
  };
  if (p.mail !== null) attributes.mail = p.mail ?? `${p.uid}@example.org`;
  if (activeDirectory) attributes.sAMAccountName = p.sAMAccountName ?? p.uid;
  return attributes;
}

const MEMBER_ATTRIBUTE: Record<SlapdGroupKind, string> = {
  groupOfNames: "member",
  groupOfUniqueNames: "uniqueMember",
  posixGroup: "memberUid",
  group: "member",
};

export const memberAttributeOf = (kind: SlapdGroupKind) => MEMBER_ATTRIBUTE[kind];

export function groupAttributes(g: SlapdGroup): Record<string, string | string[]> {
  const attributes: Record<string, string | string[]> = { objectClass: ["top", g.kind], cn: g.cn };
  if (g.kind === "posixGroup") attributes.gidNumber = String(g.gidNumber ?? 6000);
  if (g.kind === "group") attributes.sAMAccountName = g.cn;
  if (g.members.length) attributes[MEMBER_ATTRIBUTE[g.kind]] = g.members;
  return attributes;
}

/** An LDIF text of entries (values that LDIF cannot hold plainly go base64, `attr:: ...`). */
export function toLdif(entries: { dn: string; attributes: Record<string, string | string[]> }[]): string {
  const line = (name: string, value: string) =>
    /^[\x20-\x7e]*$/.test(value) && !/^[ :<]/.test(value) && !value.endsWith(" ")
      ? `${name}: ${value}`
      : `${name}:: ${Buffer.from(value).toString("base64")}`;
  return entries
    .map(({ dn, attributes }) =>
      [
        line("dn", dn),
        ...Object.entries(attributes).flatMap(([name, values]) =>
          (Array.isArray(values) ? values : [values]).map((v) => line(name, v)),
        ),
      ].join("\n"),
    )
    .join("\n\n")
    .concat("\n");
}

/**
 * Every entry of the seeded directory, parents first; `extra` people and groups after the seeded
 * ones. AD groups cannot be seeded: slapadd runs no overlay, so their members would lack `memberOf`.
 */
export function seedEntries(
  readerPassword: string,
  extra: { people?: SlapdPerson[]; groups?: SlapdGroup[] } = {},
  activeDirectory = false,
) {
  const people = [...SEEDED_PEOPLE, ...(extra.people ?? [])];
  const groups = [...SEEDED_GROUPS, ...(extra.groups ?? [])];
  if (groups.some((g) => g.kind === "group"))
    throw new Error("AD groups are added to the running slapd (addGroup), not seeded: see slapd-ad.ts");
  const ous = [...new Set(people.flatMap((p) => (p.ou ? [p.ou] : [])))];
  return [
    {
      dn: SLAPD_BASE,
      attributes: { objectClass: ["top", "dcObject", "organization"], dc: "example", o: "Example" },
    },
    {
      dn: SLAPD_READER_DN,
      attributes: {
        objectClass: ["top", "organizationalRole", "simpleSecurityObject"],
        cn: "reader",
        userPassword: sshaPassword(readerPassword),
      },
    },
    { dn: SLAPD_PEOPLE_BASE, attributes: { objectClass: ["top", "organizationalUnit"], ou: "people" } },
    ...ous.map((ou) => ({
      dn: `ou=${ou},${SLAPD_PEOPLE_BASE}`,
      attributes: { objectClass: ["top", "organizationalUnit"], ou },
    })),
    { dn: SLAPD_GROUP_BASE, attributes: { objectClass: ["top", "organizationalUnit"], ou: "groups" } },
    ...people.map((p) => ({ dn: escapedPersonDn(p), attributes: personAttributes(p, activeDirectory) })),
    ...groups.map((g) => ({ dn: groupDn(g.cn), attributes: groupAttributes(g) })),
  ];
}

/** A person's DN; the uid is escaped as a DN value. */
export const escapedPersonDn = (p: SlapdPerson) => personDn(escapeRdnValue(p.uid), p.ou);

/** RFC 4514 escaping of one RDN value (the harness's own; the product has its own in ldap/dn.ts). */
export function escapeRdnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, "\\ ");
}
