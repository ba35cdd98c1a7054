import { readFileSync } from "node:fs";
import { Client, InvalidCredentialsError } from "ldapts";
import { defaultPassword, groupDn, personDn, startSlapd, waitFor, type Slapd } from "../src/testing";

// The harness every LDAP test stands on: what it seeds, that people can bind, that it stops and
// comes back with its data, and that it starts quickly.
let slapd: Slapd;
let startedInMs: number;

beforeAll(async () => {
  const t0 = Date.now();
  slapd = await startSlapd();
  startedInMs = Date.now() - t0;
});
afterAll(() => slapd.close());

async function withClient<T>(url: string, work: (c: Client) => Promise<T>, tlsOptions = {}): Promise<T> {
  const client = new Client({ url, timeout: 5000, connectTimeout: 2000, tlsOptions });
  try {
    return await work(client);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

const search = (filter: string, base = slapd.base, attributes?: string[]) =>
  withClient(slapd.url, async (c) => {
    await c.bind(slapd.bindDn, slapd.password);
    return (await c.search(base, { filter, attributes })).searchEntries;
  });

test("it starts in well under two seconds", () => {
  expect(startedInMs).toBeLessThan(2000);
});

test("it is seeded with people and every kind of group", async () => {
  const people = await search("(objectClass=inetOrgPerson)", slapd.peopleBase, ["uid"]);
  expect(people.map((p) => p.uid).sort()).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
  const [developers] = await search("(cn=developers)", slapd.groupBase);
  expect(developers!.member).toEqual([personDn("alice"), personDn("bob")]);
  const [admins] = await search("(cn=admins)", slapd.groupBase);
  expect(admins!.uniqueMember).toBe(personDn("carol"));
  const [ops] = await search("(cn=ops)", slapd.groupBase);
  expect(ops!.memberUid).toEqual(["dave", "alice"]);
  const [engineering] = await search("(cn=engineering)", slapd.groupBase);
  expect(engineering!.member).toContain(groupDn("developers"));
});

test("people bind with their password, and nobody reads passwords", async () => {
  await withClient(slapd.url, (c) => c.bind(personDn("alice"), defaultPassword("alice")));
  await expect(withClient(slapd.url, (c) => c.bind(personDn("alice"), "wrong"))).rejects.toBeInstanceOf(
    InvalidCredentialsError,
  );
  const [alice] = await search("(uid=alice)", slapd.peopleBase, ["userPassword", "mail"]);
  expect(alice!.mail).toBe("alice@example.org");
  expect(alice!.userPassword ?? []).toEqual([]);
});

test("people and groups can be added and memberships changed", async () => {
  const dn = await slapd.addPerson({ uid: "grace", ou: "interns", extra: { employeeType: "intern" } });
  expect(dn).toBe(personDn("grace", "interns"));
  await slapd.addGroup({ cn: "interns", kind: "groupOfUniqueNames", members: [dn] });
  await slapd.addMember("developers", dn);
  await slapd.addMember("ops", "grace");
  await slapd.removeMember("developers", personDn("bob"));
  const [developers] = await search("(cn=developers)", slapd.groupBase);
  expect(developers!.member).toEqual([personDn("alice"), dn]);
  const [ops] = await search("(cn=ops)", slapd.groupBase);
  expect(ops!.memberUid).toContain("grace");
  await slapd.replaceAttribute(dn, "employeeType", ["staff"]);
  expect((await search("(uid=grace)", slapd.peopleBase))[0]!.employeeType).toBe("staff");
  await slapd.deleteEntry(dn);
  expect(await search("(uid=grace)", slapd.peopleBase)).toEqual([]);
});

test("it stops and starts again on the same port with its data", async () => {
  await slapd.addPerson({ uid: "heidi" });
  await slapd.stop();
  await expect(search("(uid=heidi)")).rejects.toThrow();
  await slapd.start();
  expect((await search("(uid=heidi)")).map((e) => e.dn)).toEqual([personDn("heidi")]);
});

describe("with TLS", () => {
  let secure: Slapd;
  beforeAll(async () => {
    secure = await startSlapd({ tls: true });
  });
  afterAll(() => secure.close());

  test("ldaps:// and StartTLS verify against the harness's CA", async () => {
    const ca = readFileSync(secure.caFile!);
    const bind = (c: Client) => c.bind(secure.bindDn, secure.password);
    await withClient(`ldaps://127.0.0.1:${secure.tlsPort}`, bind, { ca });
    await withClient(secure.url, async (c) => {
      await c.startTLS({ ca });
      await bind(c);
    });
    // Without the CA the certificate is not trusted.
    await expect(withClient(`ldaps://127.0.0.1:${secure.tlsPort}`, bind)).rejects.toThrow(/certificate/i);
  });
});

describe("seeded with more people and groups, counting searches", () => {
  let big: Slapd;
  const uids = Array.from({ length: 300 }, (_, i) => `bulk${String(i).padStart(4, "0")}`);
  beforeAll(async () => {
    big = await startSlapd({
      seed: {
        people: uids.map((uid) => ({ uid })),
        groups: [{ cn: "bulk", kind: "groupOfNames", members: uids.map((uid) => personDn(uid)) }],
      },
      countSearches: true,
    });
  });
  afterAll(() => big.close());

  test("the extra entries are there before it starts, and each search request is counted once", async () => {
    const before = big.searches;
    const [group] = await withClient(big.url, async (c) => {
      await c.bind(big.bindDn, big.password);
      return (await c.search(big.groupBase, { filter: "(cn=bulk)" })).searchEntries;
    });
    expect(group!.member).toHaveLength(300);
    const people = await withClient(big.url, async (c) => {
      await c.bind(big.bindDn, big.password);
      return (await c.search(big.peopleBase, { filter: "(uid=bulk*)", attributes: ["uid"] })).searchEntries;
    });
    expect(people).toHaveLength(300);
    // slapd logs on its own pipe: the lines may reach us just after the answers.
    await waitFor("two searches logged", () => big.searches - before >= 2);
    expect(big.searches - before).toBe(2);
    // The count survives a restart (one log for the server's whole life).
    await big.stop();
    await big.start();
    await withClient(big.url, (c) => c.search(big.base, { filter: "(uid=bulk0001)", attributes: ["uid"] }));
    await waitFor("the third search logged", () => big.searches - before >= 3);
    expect(big.searches - before).toBe(3);
  });

  test("without countSearches nothing is counted", () => {
    expect(slapd.searches).toBe(0);
  });
});
