import { writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What makes a throwaway slapd look like Active Directory to the LDAP code
 * (`startSlapd({ activeDirectory: true })`): AD's `group` and `user` object classes with
 * `sAMAccountName`, and `memberOf` kept by the server on every member of a `group`, as AD keeps it.
 *
 * Why a schema of our own: Debian ships Microsoft's schema as /etc/ldap/schema/msuser.schema, but
 * "for informational purposes only": its `sAMAccountName` and `memberOf` have no EQUALITY rule, so
 * the filters GitLab sends (`(sAMAccountName=x)`, `(memberOf=<dn>)`) could never match. The few
 * definitions below carry matching rules, under a private OID arc (a UUID arc, X.667: unique without
 * registration) so they cannot clash with a real one.
 *
 * `userAccountControl` is an INTEGER, so slapd's own integerBitAndMatch (AD's OID,
 * 1.2.840.113556.1.4.803) answers the filter GitLab sends for a disabled account.
 *
 * Why slapd's memberof overlay rather than `memberOf` values the harness writes: the server then
 * maintains the back-link on every add, modify and delete, as AD does, so a test cannot forget one
 * (`memberof-dangling error` also refuses a member that does not exist, as AD does). The overlay
 * defines `memberOf` itself, with AD's own OID (1.2.840.113556.1.2.102). It runs on LDAP writes
 * only, never under slapadd: AD groups are added to the running server (`addGroup`), not seeded.
 *
 * Not AD-like: the member attribute is never split into `member;range=N-M` (slapd has no ranged
 * retrieval, and refuses such an attribute description: `=` is not allowed in an option, RFC 4512
 * §2.5), and people keep their `uid=` RDNs.
 */
export const AD_TEST_OID_ARC = "2.25.85598488105497271455234741024970555367";

const A = `${AD_TEST_OID_ARC}.1`;
const OC = `${AD_TEST_OID_ARC}.2`;
const STRING = "1.3.6.1.4.1.1466.115.121.1.15";
const INTEGER = "1.3.6.1.4.1.1466.115.121.1.27";

const AD_SCHEMA = `# Test-only stand-ins for Active Directory's schema (see slapd-ad.ts).
attributetype ( ${A}.1 NAME 'sAMAccountName'
  DESC 'test stand-in: AD logon name'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX ${STRING}{256} SINGLE-VALUE )
attributetype ( ${A}.2 NAME 'userPrincipalName'
  DESC 'test stand-in: AD user@domain name'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX ${STRING}{1024} SINGLE-VALUE )
attributetype ( ${A}.3 NAME 'userAccountControl'
  DESC 'test stand-in: AD account flags; bit 2 is ACCOUNTDISABLE'
  EQUALITY integerMatch
  SYNTAX ${INTEGER} SINGLE-VALUE )
objectclass ( ${OC}.1 NAME 'group'
  DESC 'test stand-in: AD group; member is core member (2.5.4.31), as in AD'
  SUP top STRUCTURAL MUST cn MAY ( member $ sAMAccountName $ description $ mail ) )
objectclass ( ${OC}.2 NAME 'user'
  DESC 'test stand-in: AD user'
  SUP inetOrgPerson STRUCTURAL MAY ( sAMAccountName $ userPrincipalName $ userAccountControl ) )
`;

/** Writes the schema into the server's directory; the global slapd.conf lines that load it and the overlay. */
export function adGlobalConf(dir: string): string[] {
  const file = path.join(dir, "ad.schema");
  writeFileSync(file, AD_SCHEMA);
  return [`include ${file}`, "moduleload memberof"];
}

/** The database's slapd.conf lines: indexes for AD's searches, and memberOf kept on `group` members. */
export const adDatabaseConf = (): string[] => [
  "index sAMAccountName,memberOf eq",
  "overlay memberof",
  "memberof-group-oc group",
  "memberof-member-ad member",
  "memberof-memberof-ad memberOf",
  // A deleted or renamed entry leaves its groups, and a group its members' memberOf.
  "memberof-refint TRUE",
  "memberof-dangling error",
];
