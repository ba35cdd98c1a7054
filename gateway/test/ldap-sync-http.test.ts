/**
 * POST /groups/:id/ldap_sync and GET /ldap/groups over HTTP, with LDAP configured and without,
 * and the plan gates (reference §3.1, §3.6): sync and filter links need premium; without LDAP the
 * sync is a bare 404 and the directory search 404 too.
 */
import {
  createAdmin,
  createToken,
  expectError,
  FORBIDDEN,
  signedInUser,
  startStack,
  waitFor,
  type SignedIn,
  type Stack,
} from "./support";
import { copiedMembership, linksUrl, memberOf, newGroup } from "./ldap-support";

const SERVERS = JSON.stringify({
  main: {
    label: "LDAP",
    host: "127.0.0.1",
    port: 1,
    base: "dc=example,dc=org",
    group_base: "ou=groups,dc=example,dc=org",
    uid: "uid",
  },
});
const NOT_FOUND = { message: "404 Not Found" };

describe("with LDAP configured (ultimate)", () => {
  let stack: Stack;
  let owner: SignedIn;
  let admin: string;
  beforeAll(async () => {
    stack = await startStack({
      ldap: { CANOPY_LDAP_SERVERS: SERVERS, CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0" },
    });
    owner = await signedInUser(stack);
    admin = (await createToken(stack, (await createAdmin(stack)).id)).token;
  });
  afterAll(() => stack?.stop());

  it("answers 202 with GitLab's body, queues one sync, and refuses outsiders (404) and non-Owners (403)", async () => {
    const group = await newGroup(stack.gw, owner.secret);
    await copiedMembership(stack, group.id, owner.user.id, 50);
    const developer = await memberOf(stack, owner.secret, group.id, 30);
    await copiedMembership(stack, group.id, developer.user.id, 30);
    const outsider = await signedInUser(stack);
    const sync = (token: string, id: number | string = group.id) =>
      stack.gw.post(`/api/v4/groups/${id}/ldap_sync`, { token });
    const res = await sync(owner.secret);
    expect(res.status).toBe(202);
    expect(res.body).toBe(202);
    const { rows } = await stack.db.query("SELECT status FROM ldap.group_syncs WHERE group_id = $1", [
      group.id,
    ]);
    expect(rows[0]?.status).toMatch(/pending|started|failed|ready/);
    expect((await sync(admin)).status).toBe(202);
    expectError(await sync(outsider.secret), 404, { message: "404 Group Not Found" });
    expectError(await sync(owner.secret, 999_999_999), 404, { message: "404 Group Not Found" });
    expectError(await sync(developer.secret), 403, FORBIDDEN);
  });

  it("GET /ldap/groups: administrators only unless allow_group_owners_to_manage_ldap; unknown provider 404", async () => {
    const user = await signedInUser(stack);
    // On (GitLab's default): anyone signed in reaches the directory, which does not answer here.
    expectError(await stack.gw.get("/api/v4/ldap/groups", { token: user.secret }), 503, {
      message: "503 Service Unavailable - LDAP server ldapmain is not answering",
    });
    const off = await stack.gw.put("/api/v4/application/settings", {
      token: admin,
      json: { allow_group_owners_to_manage_ldap: false },
    });
    expect(off.status).toBe(200);
    await waitFor("the setting to reach the ldap service", async () => {
      return (await stack.gw.get("/api/v4/ldap/groups", { token: user.secret })).status === 403;
    });
    expectError(await stack.gw.get("/api/v4/ldap/groups", { token: user.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.get("/api/v4/ldap/ldapmain/groups", { token: user.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.get("/api/v4/ldap/ldapnone/groups", { token: admin }), 404, NOT_FOUND);
    await stack.gw.put("/api/v4/application/settings", {
      token: admin,
      json: { allow_group_owners_to_manage_ldap: true },
    });
  });
});

describe("without LDAP, and on the free plan", () => {
  let stack: Stack;
  let owner: SignedIn;
  let admin: string;
  beforeAll(async () => {
    stack = await startStack({ env: { CANOPY_PLAN: "free" }, ldap: {} });
    owner = await signedInUser(stack);
    admin = (await createToken(stack, (await createAdmin(stack)).id)).token;
  });
  afterAll(() => stack?.stop());

  it("keeps cn links, hides the filter key and refuses filter links with a bare 404", async () => {
    const group = await newGroup(stack.gw, owner.secret);
    await copiedMembership(stack, group.id, owner.user.id, 50);
    const created = await stack.gw.post(linksUrl(group.id), {
      token: owner.secret,
      json: { cn: "devs", group_access: 30, provider: "ldapmain" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ cn: "devs", group_access: 30, provider: "ldapmain" });
    expectError(
      await stack.gw.post(linksUrl(group.id), {
        token: owner.secret,
        json: { filter: "(ou=x)", group_access: 30, provider: "ldapmain" },
      }),
      404,
      NOT_FOUND,
    );
    expectError(
      await stack.gw.delete(`${linksUrl(group.id)}?filter=(ou=x)&provider=ldapmain`, { token: owner.secret }),
      404,
      NOT_FOUND,
    );
  });

  it("answers ldap_sync with a bare 404 and the directory search with 404", async () => {
    const group = await newGroup(stack.gw, owner.secret);
    expectError(
      await stack.gw.post(`/api/v4/groups/${group.id}/ldap_sync`, { token: owner.secret }),
      404,
      NOT_FOUND,
    );
    expectError(await stack.gw.get("/api/v4/ldap/groups", { token: admin }), 404, NOT_FOUND);
  });
});
