/**
 * The ldap service's Directory port on the kit's client, against a throwaway slapd: what the sync
 * reads of each group shape, filter links, a person's groups, the searches counted, one bind per
 * server, and a directory that is down as DirectoryUnavailable with the client's reason.
 */
import type { LdapServer } from "@canopy/kit";
import { groupDn, ldapServerFor, personDn, quietLog, startSlapd, type Slapd } from "@canopy/kit/testing";
import { DirectoryUnavailable } from "../src/directory/directory";
import { openLdapDirectory } from "../src/directory/ldap-directory";

let slapd: Slapd;
let server: LdapServer;
beforeAll(async () => {
  slapd = await startSlapd();
  server = ldapServerFor(slapd);
});
afterAll(() => slapd?.close());

const withPort = async <T>(work: (d: ReturnType<typeof openLdapDirectory>) => Promise<T>) => {
  const directory = openLdapDirectory(quietLog);
  try {
    return await work(directory);
  } finally {
    await directory.close();
  }
};

it("reads groupOfNames, groupOfUniqueNames and posixGroup entries, a missing cn as undefined", async () => {
  await withPort(async (d) => {
    expect(await d.findGroup(server, "developers")).toEqual({
      dn: groupDn("developers"),
      cn: "developers",
      memberDns: [personDn("alice"), personDn("bob")],
      memberUids: [],
    });
    expect((await d.findGroup(server, "admins"))?.memberDns).toEqual([personDn("carol")]);
    expect((await d.findGroup(server, "ops"))?.memberUids.sort()).toEqual(["alice", "dave"]);
    expect(await d.findGroup(server, "no-such-group")).toBeUndefined();
    // A value that would widen the filter is a literal cn.
    expect(await d.findGroup(server, "*")).toBeUndefined();
    expect(d.queries).toBe(5);
  });
});

it("finds people by filter and by uid, and a person's groups by DN", async () => {
  await withPort(async (d) => {
    expect((await d.searchPeople(server, "(employeeType=contractor)")).sort()).toEqual([personDn("dave")]);
    expect(await d.searchPeople(server, "(((")).toEqual([]);
    expect(await d.findPersonDn(server, "dave")).toBe(personDn("dave"));
    expect(await d.findPersonDn(server, "nobody")).toBeUndefined();
    expect((await d.groupCnsOfPerson(server, personDn("alice"))).sort()).toEqual(["developers", "ops"]);
    expect(await d.searchGroupCns(server, "dev", 20)).toEqual(["developers"]);
  });
});

it("fails as DirectoryUnavailable with the client's reason when the directory is down", async () => {
  await slapd.stop();
  try {
    await withPort(async (d) => {
      const failure = await d.findGroup(server, "developers").catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DirectoryUnavailable);
      expect((failure as DirectoryUnavailable).provider).toBe("ldapmain");
      expect((failure as Error).message).toMatch(/^LDAP server ldapmain \(127\.0\.0\.1:\d+\) cannot be used/);
    });
  } finally {
    await slapd.start();
  }
  // A session that failed to open is not kept.
  await withPort(async (d) => expect(await d.findPersonDn(server, "bob")).toBe(personDn("bob")));
});
