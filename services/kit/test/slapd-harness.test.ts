import { readFileSync } from "node:fs";
import { Client, InvalidCredentialsError } from "ldapts";
import { defaultPassword, groupDn, personDn, startSlapd, type Slapd } from "../src/testing";

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
