/**
 * How a user comes to wait for approval in Canopy: an LDAP server configured with GitLab's
 * `block_auto_created_users` makes the user of a person's first sign-in `blocked_pending_approval`
 * (GitLab's OAuth::User#save). They cannot sign in until an administrator approves them (POST
 * /users/:id/approve); a rejected one is removed, and signs in as a new pending user next time.
 */
import { ldapServersEnv, startSlapd, unique, type Slapd } from "@canopy/kit/testing";
import { startStack, userRow, type Stack } from "./support";

jest.setTimeout(30_000);

let slapd: Slapd;
let stack: Stack;
beforeAll(async () => {
  slapd = await startSlapd();
  const servers = ldapServersEnv({ main: slapd.serverConfig({ block_auto_created_users: true }) });
  stack = await startStack({ env: { CANOPY_LDAP_SERVERS: servers } });
}, 30_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

async function newPerson() {
  const uid = unique("pend_");
  const dn = await slapd.addPerson({ uid, givenName: "Pia", sn: "Pending" });
  return { uid, dn, password: `${uid}-password` };
}

const passwordGrant = (username: string, password: string) =>
  stack.gw.post("/oauth/token", { form: { grant_type: "password", username, password } });

const userIdOf = async (dn: string) => {
  const { rows } = await stack.db.query(
    "SELECT user_id FROM auth.identities WHERE provider = 'ldapmain' AND extern_uid = $1",
    [dn],
  );
  return rows[0] ? Number(rows[0].user_id) : undefined;
};

test("the first sign-in makes a user pending approval, who signs in once approved", async () => {
  const person = await newPerson();
  const refused = await passwordGrant(person.uid, person.password);
  expect({ status: refused.status, error: (refused.body as { error: string }).error }).toEqual({
    status: 400,
    error: "invalid_grant",
  });
  const id = (await userIdOf(person.dn))!;
  expect(await userRow(stack, id)).toMatchObject({ state: "blocked_pending_approval" });
  const shown = await stack.gw.get(`/api/v4/users/${id}`, { token: stack.rootToken });
  expect(shown.body).toMatchObject({ state: "blocked_pending_approval" });
  // A second attempt finds the same user, still pending.
  expect((await passwordGrant(person.uid, person.password)).status).toBe(400);
  expect(await userIdOf(person.dn)).toBe(id);

  const approved = await stack.gw.post(`/api/v4/users/${id}/approve`, { token: stack.rootToken });
  expect({ status: approved.status, body: approved.body }).toEqual({
    status: 201,
    body: { message: "Success" },
  });
  const granted = await passwordGrant(person.uid, person.password);
  expect(granted.status).toBe(200);
  const token = (granted.body as { access_token: string }).access_token;
  expect((await stack.gw.get("/api/v4/user", { token })).body).toMatchObject({ id, state: "active" });
});

test("a rejected user is removed; the person's next sign-in waits for approval again", async () => {
  const person = await newPerson();
  await passwordGrant(person.uid, person.password);
  const id = (await userIdOf(person.dn))!;
  const rejected = await stack.gw.post(`/api/v4/users/${id}/reject`, { token: stack.rootToken });
  expect({ status: rejected.status, body: rejected.body }).toEqual({
    status: 200,
    body: { message: "Success" },
  });
  expect(await userRow(stack, id)).toBeUndefined();
  expect((await passwordGrant(person.uid, person.password)).status).toBe(400);
  const again = (await userIdOf(person.dn))!;
  expect(again).not.toBe(id);
  expect(await userRow(stack, again)).toMatchObject({ state: "blocked_pending_approval" });
});
