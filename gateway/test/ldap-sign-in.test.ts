/**
 * Signing in with LDAP against a real OpenLDAP: the sign-in page's tab and its form post
 * (GitLab's /users/auth/ldapmain/callback), the password grant, the user and identity made at the
 * first sign-in, later sign-ins asking the directory again, one generic refusal for everything.
 *
 * The test database is shared with other suites: every person here has a uid of its own.
 */
import { ldapServersEnv, startSlapd, unique, type Slapd } from "@canopy/kit/testing";
import { createUser, PASSWORD, startStack, userRow, type Stack } from "./support";
import { Browser, csrfTokenOf, expectHtmlPage, WEB_GATEWAY } from "./web-support";

jest.setTimeout(30_000);

const INVALID = "Invalid login or password.";
let slapd: Slapd;
let stack: Stack;

beforeAll(async () => {
  slapd = await startSlapd();
  const servers = ldapServersEnv({
    main: slapd.serverConfig({ label: "Example Directory", user_filter: "(!(employeeType=former))" }),
  });
  stack = await startStack({ gateways: [WEB_GATEWAY], env: { CANOPY_LDAP_SERVERS: servers } });
}, 30_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

/** A new person in the directory; their password is `<uid>-password`. */
async function newPerson(extra: Record<string, string> = {}) {
  const uid = unique("ldap_");
  const dn = await slapd.addPerson({ uid, givenName: "Lena", sn: "Dapper", extra });
  return { uid, dn, password: `${uid}-password` };
}

async function ldapSignIn(b: Browser, username: string, password: string) {
  const page = await b.get("/users/sign_in");
  return b.post("/users/auth/ldapmain/callback", {
    authenticity_token: csrfTokenOf(page.text),
    username,
    password,
  });
}

const identitiesOf = async (userId: number) =>
  (await stack.db.query("SELECT provider, extern_uid FROM auth.identities WHERE user_id = $1", [userId]))
    .rows;

const userIdByIdentity = async (dn: string) => {
  const { rows } = await stack.db.query(
    "SELECT user_id FROM auth.identities WHERE provider = 'ldapmain' AND extern_uid = $1",
    [dn],
  );
  return rows[0] ? Number(rows[0].user_id) : undefined;
};

const passwordGrant = (username: string, password: string) =>
  stack.gw.post("/oauth/token", { form: { grant_type: "password", username, password } });

describe("the sign-in page", () => {
  test("has a tab labelled with the server's label, posting username and password to its callback", async () => {
    const page = await new Browser(stack.gw).get("/users/sign_in");
    expectHtmlPage(page);
    expect(page.text).toContain('<a href="#ldapmain" aria-current="true">Example Directory</a>');
    expect(page.text).toContain('<form method="post" action="/users/auth/ldapmain/callback">');
    expect(page.text).toContain('<label for="ldapmain_username">Example Directory Username</label>');
    expect(page.text).toContain('name="username"');
    // The standard form stays, for local users.
    expect(page.text).toContain('<a href="#login-pane">Standard</a>');
    expect(page.text).toContain('<form method="post" action="/users/sign_in">');
  });
});

describe("signing in on the page", () => {
  test("the first sign-in creates the user from the directory, with an LDAP identity", async () => {
    const person = await newPerson();
    const b = new Browser(stack.gw);
    const res = await ldapSignIn(b, person.uid, person.password);
    expect(res.status).toBe(302);
    expect(res.location).toBe("/profile/applications");
    const userId = (await userIdByIdentity(person.dn))!;
    expect(await userRow(stack, userId)).toMatchObject({
      username: person.uid,
      name: "Lena Dapper",
      email: `${person.uid}@example.org`,
      password_hash: null,
      state: "active",
    });
    expect(await identitiesOf(userId)).toEqual([{ provider: "ldapmain", extern_uid: person.dn }]);
    // Signed in: the home page knows them.
    expect((await b.get("/")).text).toContain(person.uid);
  });

  test("a later sign-in is the same user; a person who left the directory is refused", async () => {
    const person = await newPerson();
    const first = new Browser(stack.gw);
    await ldapSignIn(first, person.uid, person.password);
    const userId = await userIdByIdentity(person.dn);
    const second = new Browser(stack.gw);
    expect((await ldapSignIn(second, person.uid, person.password)).status).toBe(302);
    expect(await userIdByIdentity(person.dn)).toBe(userId);
    // Each is a sign-in GitLab's trackable records, with the browser's address.
    const seen = await stack.gw.get(`/api/v4/users/${userId}`, { token: stack.rootToken });
    expect(seen.body).toMatchObject({
      sign_in_count: 2,
      current_sign_in_ip: second.ip,
      last_sign_in_ip: first.ip,
    });
    await slapd.deleteEntry(person.dn);
    const refused = await ldapSignIn(new Browser(stack.gw), person.uid, person.password);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain(INVALID);
  });

  test("a person who no longer matches user_filter is refused with the right password", async () => {
    const person = await newPerson();
    expect((await ldapSignIn(new Browser(stack.gw), person.uid, person.password)).status).toBe(302);
    await slapd.replaceAttribute(person.dn, "employeeType", ["former"]);
    const refused = await ldapSignIn(new Browser(stack.gw), person.uid, person.password);
    expect(refused.text).toContain(INVALID);
    expect((await passwordGrant(person.uid, person.password)).status).toBe(400);
  });

  test.each([
    ["a wrong password", (p: { uid: string }) => [p.uid, "wrong-password"]],
    ["an unknown person", () => ["nobody-here", "x-password"]],
    ["an empty password", (p: { uid: string }) => [p.uid, ""]],
    ["a wildcard username", (p: { password: string }) => ["*", p.password]],
    ["a filter breakout", (p: { password: string }) => ["*)(uid=*", p.password]],
  ])("%s: the one generic refusal, the username kept, no user made", async (_what, creds) => {
    const person = await newPerson();
    const [username, password] = creds(person) as [string, string];
    const res = await ldapSignIn(new Browser(stack.gw), username, password);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<div class="flash alert" role="alert">${INVALID}</div>`);
    expect(await userIdByIdentity(person.dn)).toBeUndefined();
  });

  test("a provider that is not configured is a 404; the form needs its CSRF token", async () => {
    const b = new Browser(stack.gw);
    const page = await b.get("/users/sign_in");
    const token = csrfTokenOf(page.text);
    expect((await b.post("/users/auth/ldapother/callback", { authenticity_token: token })).status).toBe(404);
    expect((await b.post("/users/auth/ldapmain/callback", { username: "a", password: "b" })).status).toBe(
      422,
    );
  });

  test("a taken username gets a number, as GitLab's Uniquify does", async () => {
    const person = await newPerson();
    await createUser(stack, { username: person.uid, email: `${unique("other")}@example.com` });
    await ldapSignIn(new Browser(stack.gw), person.uid, person.password);
    const row = await userRow(stack, (await userIdByIdentity(person.dn))!);
    expect(row!.username).toBe(`${person.uid}1`);
  });

  test("an existing user with the directory's email gets the identity (GitLab links by email)", async () => {
    const person = await newPerson();
    const local = await createUser(stack, { email: `${person.uid}@example.org` });
    await ldapSignIn(new Browser(stack.gw), person.uid, person.password);
    expect(await userIdByIdentity(person.dn)).toBe(local.id);
  });
});

describe("the password grant", () => {
  test("a directory password works, and the first one creates the user", async () => {
    const person = await newPerson();
    const res = await passwordGrant(person.uid, person.password);
    expect(res.status).toBe(200);
    const token = (res.body as { access_token: string }).access_token;
    const me = await stack.gw.get("/api/v4/user", { headers: { Authorization: `Bearer ${token}` } });
    expect(me.body).toMatchObject({
      username: person.uid,
      identities: [{ provider: "ldapmain", extern_uid: person.dn }],
      // The password grant is no sign-in GitLab records.
      current_sign_in_at: null,
    });
  });

  test("refusals are invalid_grant with one description", async () => {
    const person = await newPerson();
    for (const [username, password] of [
      [person.uid, "wrong"],
      ["*", person.password],
      ["nobody-at-all", "whatever-password"],
    ] as const) {
      const res = await passwordGrant(username, password);
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toBe("invalid_grant");
    }
  });

  test("local users keep their local password; LDAP users never get one that works", async () => {
    const local = await createUser(stack);
    expect((await passwordGrant(local.username, PASSWORD)).status).toBe(200);
    const person = await newPerson();
    await passwordGrant(person.uid, person.password);
    const userId = (await userIdByIdentity(person.dn))!;
    // An administrator sets a local password: GitLab still signs an LDAP user in through LDAP only.
    const put = await stack.gw.put(`/api/v4/users/${userId}`, {
      token: stack.rootToken,
      json: { password: PASSWORD },
    });
    expect(put.status).toBe(200);
    expect((await passwordGrant(person.uid, PASSWORD)).status).toBe(400);
    expect((await passwordGrant(person.uid, person.password)).status).toBe(200);
  });

  test("a directory that is down refuses as a wrong password does, and recovers", async () => {
    const person = await newPerson();
    await slapd.stop();
    try {
      const res = await passwordGrant(person.uid, person.password);
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toBe("invalid_grant");
    } finally {
      await slapd.start();
    }
    expect((await passwordGrant(person.uid, person.password)).status).toBe(200);
  });
});
