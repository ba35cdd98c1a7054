import {
  authenticateWithDirectory,
  LdapConnectionError,
  LdapDirectory,
  withDirectory,
  type LdapServer,
} from "@canopy/kit";
import {
  defaultPassword,
  groupDn,
  ldapServerFor,
  personDn,
  startSlapd,
  type Slapd,
} from "@canopy/kit/testing";

// The directory client against a real OpenLDAP: people, sign-in binds, groups, filters, TLS, a
// directory that goes away, and LDAP injection through every value a user can type.
let slapd: Slapd;
let server: LdapServer;

beforeAll(async () => {
  slapd = await startSlapd({ tls: true });
  server = ldapServerFor(slapd);
});
afterAll(() => slapd.close());

const directory = <T>(work: (d: LdapDirectory) => Promise<T>, s = server) => withDirectory(s, work);

describe("people", () => {
  test("a person by uid, read as GitLab maps the attributes", async () => {
    const alice = await directory((d) => d.findPersonByUid("alice"));
    expect(alice).toEqual({
      provider: "ldapmain",
      rawDn: personDn("alice"),
      dn: personDn("alice"),
      uid: "alice",
      username: "alice",
      emails: ["alice@example.org"],
      email: "alice@example.org",
      name: "Alice Archer",
      firstName: "Alice",
      lastName: "Archer",
    });
  });

  test("a person without mail has no email; a DN needing escapes is normalized", async () => {
    expect((await directory((d) => d.findPersonByUid("erin")))!.email).toBeUndefined();
    const frank = await directory((d) => d.findPersonByUid("frank"));
    expect(frank).toMatchObject({
      dn: "uid=frank,ou=contractors,ou=people,dc=example,dc=org",
      name: "Frank, Jr.",
    });
  });

  test("configured attributes and lowercase_usernames decide username, email and name", async () => {
    await slapd.addPerson({
      uid: "MixedCase",
      mail: "first@example.org",
      extra: { displayName: "Shown Name" },
    });
    const custom = ldapServerFor(slapd, {
      lowercase_usernames: true,
      attributes: { username: ["userid", "uid"], email: "mail", name: "displayName" },
    });
    const person = await directory((d) => d.findPersonByUid("MixedCase"), custom);
    expect(person).toMatchObject({ username: "mixedcase", uid: "MixedCase", name: "Shown Name" });
  });

  test("user_filter is applied to every lookup", async () => {
    const staff = ldapServerFor(slapd, { user_filter: "(employeeType=staff)" });
    expect(await directory((d) => d.findPersonByUid("alice"), staff)).toBeDefined();
    expect(await directory((d) => d.findPersonByUid("dave"), staff)).toBeUndefined();
    expect(await directory((d) => d.findPersonByDn(personDn("dave")), staff)).toBeUndefined();
    // Written without parentheses, as GitLab accepts it.
    const bare = ldapServerFor(slapd, { user_filter: "employeeType=contractor" });
    expect(await directory((d) => d.findPersonByUid("dave"), bare)).toBeDefined();
  });

  test("a person by DN, however the DN is spelled; none for a missing or malformed DN", async () => {
    const bob = await directory((d) => d.findPersonByDn("UID=Bob, OU=People, DC=Example, DC=Org"));
    expect(bob?.dn).toBe(personDn("bob"));
    expect(await directory((d) => d.findPersonByDn(personDn("nobody")))).toBeUndefined();
    expect(await directory((d) => d.findPersonByDn("not a dn"))).toBeUndefined();
  });
});

describe("sign-in binds", () => {
  test("the right password gives the person; anything else nothing", async () => {
    const alice = await authenticateWithDirectory(server, "alice", defaultPassword("alice"));
    expect(alice?.dn).toBe(personDn("alice"));
    expect(await authenticateWithDirectory(server, "alice", "wrong")).toBeUndefined();
    expect(await authenticateWithDirectory(server, "nobody", "x")).toBeUndefined();
    // An empty password would be an anonymous bind, which LDAP accepts.
    expect(await authenticateWithDirectory(server, "alice", "")).toBeUndefined();
    expect(await authenticateWithDirectory(server, "", "x")).toBeUndefined();
  });

  test("a person filtered out by user_filter cannot sign in with the right password", async () => {
    const staff = ldapServerFor(slapd, { user_filter: "(employeeType=staff)" });
    expect(await authenticateWithDirectory(staff, "dave", defaultPassword("dave"))).toBeUndefined();
  });

  test.each([
    ["*", "a wildcard"],
    ["a*", "a prefix wildcard"],
    ["*)(uid=*", "a filter breakout"],
    ["alice)(|(uid=*", "an OR breakout"],
    ["*)(|(objectClass=*)", "an objectClass breakout"],
    ["alice\\", "a trailing backslash"],
    ["\\2a", "an escaped wildcard"],
    ["alice\0", "a NUL"],
    ["alice\u0000)(uid=*", "a NUL and a breakout"],
  ])("LDAP injection in the username (%j, %s) finds nobody", async (login) => {
    expect(await directory((d) => d.findPersonByUid(login))).toBeUndefined();
    expect(await authenticateWithDirectory(server, login, defaultPassword("alice"))).toBeUndefined();
  });

  test("a wrong service account password is a connection error, not a refusal", async () => {
    const wrong = ldapServerFor(slapd, { password: "wrong" });
    await expect(authenticateWithDirectory(wrong, "alice", defaultPassword("alice"))).rejects.toThrow(
      /refused the service account's bind/,
    );
  });
});

describe("groups", () => {
  test("groupOfNames, groupOfUniqueNames and posixGroup members", async () => {
    const [developers, admins, ops, engineering] = await directory((d) =>
      Promise.all(["developers", "admins", "ops", "engineering"].map((cn) => d.findGroupByCn(cn))),
    );
    expect(developers).toEqual({
      dn: groupDn("developers"),
      cn: "developers",
      memberDns: [personDn("alice"), personDn("bob")],
      memberUids: [],
    });
    expect(admins!.memberDns).toEqual([personDn("carol")]);
    expect(ops).toMatchObject({ memberDns: [], memberUids: ["dave", "alice"] });
    // A nested group shows as its DN; resolving it is the sync's business.
    expect(engineering!.memberDns).toEqual([groupDn("developers"), personDn("dave")]);
  });

  test("no group for an unknown cn, an injected cn, or without group_base", async () => {
    expect(await directory((d) => d.findGroupByCn("nope"))).toBeUndefined();
    expect(await directory((d) => d.findGroupByCn("*"))).toBeUndefined();
    expect(await directory((d) => d.findGroupByCn("developers)(cn=*"))).toBeUndefined();
    const noBase = ldapServerFor(slapd, { group_base: undefined });
    expect(await directory((d) => d.findGroupByCn("developers"), noBase)).toBeUndefined();
  });

  test("group cns by prefix, a typed * taken literally", async () => {
    expect((await directory((d) => d.listGroupCns("dev"))).sort()).toEqual(["developers"]);
    expect(await directory((d) => d.listGroupCns("*"))).toEqual([]);
    expect((await directory((d) => d.listGroupCns(""))).length).toBeGreaterThanOrEqual(4);
    expect(await directory((d) => d.listGroupCns("", 2))).toHaveLength(2);
  });

  test("the groups a person is in, by DN or by uid", async () => {
    const cns = await directory(async (d) => d.groupCnsOf((await d.findPersonByUid("alice"))!));
    expect(cns.sort()).toEqual(["developers", "ops"]);
  });

  test("a filter search returns normalized DNs, all of them, and nothing for a bad filter", async () => {
    const dns = await directory((d) => d.searchDns("(employeeType=staff)"));
    expect(dns).toEqual(expect.arrayContaining([personDn("alice"), personDn("bob"), personDn("carol")]));
    expect(dns).not.toContain(personDn("dave"));
    expect(await directory((d) => d.searchDns("(employeeType=staff"))).toBeUndefined();
    await slapd.addPeople(
      Array.from({ length: 510 }, (_, i) => ({ uid: `bulk${i}`, extra: { employeeType: "bulk" } })),
    );
    expect(await directory((d) => d.searchDns("(employeeType=bulk)"))).toHaveLength(510);
  });
});

describe("TLS", () => {
  const tls = (overrides: Record<string, unknown>) => ldapServerFor(slapd, overrides);

  test("simple_tls and start_tls verify the certificate against ca_file", async () => {
    const simple = tls({ encryption: "simple_tls", port: slapd.tlsPort, ca_file: slapd.caFile });
    expect(await authenticateWithDirectory(simple, "bob", defaultPassword("bob"))).toBeDefined();
    const start = tls({ encryption: "start_tls", ca_file: slapd.caFile });
    expect(await directory((d) => d.findPersonByUid("bob"), start)).toBeDefined();
  });

  test("an untrusted certificate is refused unless verify_certificates is off", async () => {
    const untrusted = tls({ encryption: "simple_tls", port: slapd.tlsPort });
    await expect(directory((d) => d.findPersonByUid("bob"), untrusted)).rejects.toBeInstanceOf(
      LdapConnectionError,
    );
    await expect(
      directory((d) => d.findPersonByUid("bob"), tls({ encryption: "start_tls" })),
    ).rejects.toBeInstanceOf(LdapConnectionError);
    const unverified = tls({ encryption: "simple_tls", port: slapd.tlsPort, verify_certificates: false });
    expect(await directory((d) => d.findPersonByUid("bob"), unverified)).toBeDefined();
  });
});

describe("a directory that goes away", () => {
  test("is a connection error, and an open session recovers once it is back", async () => {
    const session = await LdapDirectory.open(server);
    try {
      await slapd.stop();
      await expect(session.findPersonByUid("alice")).rejects.toBeInstanceOf(LdapConnectionError);
      await expect(authenticateWithDirectory(server, "alice", defaultPassword("alice"))).rejects.toThrow(
        /cannot be used/,
      );
      await slapd.start();
      expect(await session.findPersonByUid("alice")).toBeDefined();
    } finally {
      await session.close();
    }
  });

  test("a server that does not answer times out within `timeout`", async () => {
    // A listening socket that never speaks LDAP.
    const { createServer } = await import("node:net");
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    try {
      await expect(
        withDirectory(ldapServerFor(slapd, { port, timeout: 1 }), (d) => d.findPersonByUid("alice")),
      ).rejects.toThrow(/did not answer within 1 s/);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      silent.close();
    }
  });
});
