/**
 * GitLab's `ldap_blocked` (Gitlab::Auth::Ldap::Access#allowed?): the LDAP user check blocks a user
 * whose person left the directory, stopped matching `user_filter` or is disabled in Active
 * Directory, and lifts that block when the person is back; an LDAP sign-in lifts it too. The
 * check is run here at chosen moments (checkDueLdapUsers), as each replica's timer runs it.
 *
 * Its own database: the check reads every LDAP user of the database it runs on.
 */
import { checkDueLdapUsers, authServiceDefinition, type AuthDeps } from "@canopy/auth";
import { createPool } from "@canopy/kit";
import { ldapServersEnv, startSlapd, startTestService, unique, type Slapd } from "@canopy/kit/testing";
import {
  expectError,
  ROOT_PASSWORD,
  startStack,
  userRow,
  waitFor,
  type Gateway,
  type Stack,
} from "./support";
import { Browser, csrfTokenOf, WEB_GATEWAY } from "./web-support";

jest.setTimeout(30_000);

const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };
let slapd: Slapd;
let ad: Slapd;
let stack: Stack;
let other: Gateway;
let deps: AuthDeps;
let servers: string;

beforeAll(async () => {
  [slapd, ad] = await Promise.all([startSlapd(), startSlapd({ activeDirectory: true })]);
  servers = ldapServersEnv({
    main: slapd.serverConfig({ user_filter: "(!(employeeType=former))" }),
    ad: ad.serverConfig(),
  });
  stack = await startStack({
    ownDatabase: true,
    gateways: [WEB_GATEWAY, {}],
    env: { CANOPY_LDAP_SERVERS: servers },
  });
  other = stack.gateways[1]!;
  // The stack's interval is 0 (no timer): every LDAP user is due at every run.
  deps = stack.authService.deps as AuthDeps;
}, 30_000);
afterAll(async () => {
  await stack?.stop();
  await Promise.all([slapd?.close(), ad?.close()]);
});

async function newPerson(directory = slapd) {
  const uid = unique("lb_");
  const dn = await directory.addPerson({
    uid,
    givenName: "Lee",
    sn: "Blocked",
    extra: { employeeType: "staff" },
  });
  return { uid, dn, password: `${uid}-password` };
}

const passwordGrant = (username: string, password: string) =>
  stack.gw.post("/oauth/token", { form: { grant_type: "password", username, password } });

/** A person's first sign-in (the password grant) makes their user; their id and access token. */
async function signedInPerson(person: { uid: string; password: string }) {
  const res = await passwordGrant(person.uid, person.password);
  expect(res.status).toBe(200);
  const token = (res.body as { access_token: string }).access_token;
  const me = await stack.gw.get("/api/v4/user", { token });
  return { id: (me.body as { id: number }).id, token };
}

const stateOf = async (id: number) => (await userRow(stack, id))?.state;
const checkedAt = async (id: number) => (await userRow(stack, id))?.last_credential_check_at as Date | null;

const refusedEverywhere = (token: string) =>
  Promise.all(
    [stack.gw, other].map((gw) =>
      waitFor("the token refused", async () =>
        (await gw.get("/api/v4/user", { token })).status === 403 ? gw : undefined,
      ),
    ),
  );

test("a person removed from the directory is ldap_blocked by the next check, refused at once, and back by signing in", async () => {
  const person = await newPerson();
  const b = new Browser(stack.gw);
  const page = await b.get("/users/sign_in");
  const signIn = await b.post("/users/auth/ldapmain/callback", {
    authenticity_token: csrfTokenOf(page.text),
    username: person.uid,
    password: person.password,
  });
  expect(signIn.status).toBe(302);
  const { id, token } = await signedInPerson(person);
  for (const gw of [stack.gw, other]) expect((await gw.get("/api/v4/user", { token })).status).toBe(200);
  expect((await b.get("/profile/applications")).status).toBe(200);

  expect((await checkDueLdapUsers(deps)).blocked).toBe(0);
  expect(await stateOf(id)).toBe("active");
  expect(await checkedAt(id)).toBeInstanceOf(Date);

  await slapd.deleteEntry(person.dn);
  expect(await checkDueLdapUsers(deps)).toMatchObject({ blocked: 1, unreachable: [] });
  expect(await stateOf(id)).toBe("ldap_blocked");
  expect(stack.logs.text()).toContain(`LDAP account does not exist anymore, blocking the user`);
  for (const gw of await refusedEverywhere(token))
    expectError(await gw.get("/api/v4/user", { token }), 403, BLOCKED);
  expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");

  // Only the directory lifts it: the API refuses, with GitLab's words.
  const unblock = await stack.gw.post(`/api/v4/users/${id}/unblock`, { token: stack.rootToken });
  expectError(unblock, 403, { message: "403 Forbidden - LDAP blocked users cannot be unblocked by the API" });
  expect((await passwordGrant(person.uid, person.password)).status).toBe(400);

  // Back in the directory, the person's sign-in makes the user active again.
  await slapd.addPerson({ uid: person.uid, givenName: "Lee", sn: "Blocked" });
  await stack.db.query("UPDATE auth.users SET last_credential_check_at = NULL WHERE id = $1", [id]);
  const again = await signedInPerson(person);
  expect(again.id).toBe(id);
  expect(await stateOf(id)).toBe("active");
  expect(await checkedAt(id)).toBeInstanceOf(Date);
  expect((await stack.gw.get("/api/v4/user", { token })).status).toBe(200);
});

test("a person no longer matching user_filter is blocked, and unblocked by the check once they match again", async () => {
  const person = await newPerson();
  const { id } = await signedInPerson(person);
  await slapd.replaceAttribute(person.dn, "employeeType", ["former"]);
  await checkDueLdapUsers(deps);
  expect(await stateOf(id)).toBe("ldap_blocked");
  await slapd.replaceAttribute(person.dn, "employeeType", ["staff"]);
  await checkDueLdapUsers(deps);
  expect(await stateOf(id)).toBe("active");
  expect(stack.logs.text()).toContain("LDAP account is available again, unblocking the user");
});

test("an account disabled in Active Directory is blocked, refused at sign-in, and back once enabled", async () => {
  const person = await newPerson(ad);
  const signIn = (password = person.password) =>
    stack.gw.post("/oauth/token", { form: { grant_type: "password", username: person.uid, password } });
  const granted = await signIn();
  expect(granted.status).toBe(200);
  const { rows } = await stack.db.query(
    "SELECT user_id FROM auth.identities WHERE provider = 'ldapad' AND extern_uid = lower($1)",
    [person.dn],
  );
  const id = Number(rows[0]!.user_id);
  await ad.replaceAttribute(person.dn, "userAccountControl", ["514"]);
  await checkDueLdapUsers(deps);
  expect(await stateOf(id)).toBe("ldap_blocked");
  expect((await signIn()).status).toBe(400);
  await ad.replaceAttribute(person.dn, "userAccountControl", ["512"]);
  expect((await signIn()).status).toBe(200);
  expect(await stateOf(id)).toBe("active");
  // Disabled again, the sign-in itself blocks (GitLab asks AD at every LDAP sign-in).
  await ad.replaceAttribute(person.dn, "userAccountControl", ["514"]);
  expect((await signIn()).status).toBe(400);
  expect(await stateOf(id)).toBe("ldap_blocked");
});

test("a user an administrator blocked is never touched, whatever the directory says", async () => {
  const person = await newPerson();
  const { id } = await signedInPerson(person);
  const block = await stack.gw.post(`/api/v4/users/${id}/block`, { token: stack.rootToken });
  expect(block.status).toBe(201);
  const before = await checkedAt(id);
  await slapd.deleteEntry(person.dn);
  await checkDueLdapUsers(deps);
  expect(await stateOf(id)).toBe("blocked");
  expect(await checkedAt(id)).toEqual(before);
});

test("a directory that cannot be reached changes nothing", async () => {
  const person = await newPerson();
  const { id } = await signedInPerson(person);
  await stack.db.query("UPDATE auth.users SET last_credential_check_at = NULL WHERE id = $1", [id]);
  await slapd.deleteEntry(person.dn);
  await slapd.stop();
  try {
    const run = await checkDueLdapUsers(deps);
    expect(run.unreachable).toContain("ldapmain");
    expect(await stateOf(id)).toBe("active");
    expect(await checkedAt(id)).toBeNull();
    expect(stack.logs.text()).toContain("LDAP user check: directory unavailable");
  } finally {
    await slapd.start();
  }
  await checkDueLdapUsers(deps);
  expect(await stateOf(id)).toBe("ldap_blocked");
});

test("two runs at once (two pools) check each user once", async () => {
  for (let i = 0; i < 12; i++) await signedInPerson(await newPerson());
  const due = await stack.db.query(
    `SELECT count(DISTINCT u.id)::int AS n FROM auth.users u JOIN auth.identities i ON i.user_id = u.id
      WHERE i.provider LIKE 'ldap%' AND u.state IN ('active', 'deactivated', 'ldap_blocked')`,
  );
  // With the hour's interval, what one run checks is not due for the other (with 0, a user checked
  // before a run started is due again for it).
  await stack.db.query("UPDATE auth.users SET last_credential_check_at = NULL");
  const config = { ...deps.config, CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS: 3600 };
  const pools = [0, 1].map(() => createPool({ url: deps.config.CANOPY_DATABASE_URL, schema: "auth" }));
  try {
    const runs = await Promise.all(
      pools.map((pool) => checkDueLdapUsers({ ...deps, config, pool }, { batch: 3 })),
    );
    expect(runs[0]!.checked + runs[1]!.checked).toBe(due.rows[0].n);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
});

test("an auth replica started with an interval runs the check by its timer", async () => {
  const person = await newPerson();
  const { id } = await signedInPerson(person);
  await slapd.deleteEntry(person.dn);
  // Signed in a moment ago: not due within the hour unless never checked.
  await stack.db.query("UPDATE auth.users SET last_credential_check_at = NULL WHERE id = $1", [id]);
  const { config } = stack.authService;
  const replica = await startTestService(authServiceDefinition, {
    env: {
      CANOPY_DATABASE_URL: config.CANOPY_DATABASE_URL,
      CANOPY_EVENT_STREAM: config.CANOPY_EVENT_STREAM,
      CANOPY_SETTINGS_BUCKET: config.CANOPY_SETTINGS_BUCKET,
      CANOPY_ROOT_PASSWORD: ROOT_PASSWORD,
      CANOPY_LDAP_SERVERS: servers,
      CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS: "3600",
    },
  });
  try {
    await waitFor("the replica's check", async () =>
      (await stateOf(id)) === "ldap_blocked" ? true : undefined,
    );
  } finally {
    await replica.stop();
  }
});
