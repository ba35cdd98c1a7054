/**
 * LDAP group links over HTTP (GitLab ee/lib/api/ldap_group_links.rb; reference §3.1, §3.2, §3.6):
 * every route, every error body, and who may call them. The ldap service is real and finds groups
 * and Owners through its copies of the groups service's events.
 */
import {
  createAdmin,
  createToken,
  expectError,
  FORBIDDEN,
  startStack,
  UNAUTHORIZED,
  signedInUser,
  type SignedIn,
  type Stack,
} from "./support";
import { copiedMembership, linksUrl, memberOf, newGroup } from "./ldap-support";

let stack: Stack;
let owner: SignedIn;
let admin: string;

beforeAll(async () => {
  stack = await startStack({ ldap: {} });
  owner = await signedInUser(stack);
  admin = (await createToken(stack, (await createAdmin(stack)).id)).token;
});
afterAll(() => stack?.stop());

/** A private group of `owner`, copied by the ldap service. */
async function ownedGroup() {
  const group = await newGroup(stack.gw, owner.secret);
  await copiedMembership(stack, group.id, owner.user.id, 50);
  return group;
}

const post = (id: number | string, json: Record<string, unknown>, token = owner.secret) =>
  stack.gw.post(linksUrl(id), { token, json });

describe("GET and POST /groups/:id/ldap_group_links", () => {
  it("answers 404 'No linked LDAP groups found' until a link exists, then lists links without ids", async () => {
    const group = await ownedGroup();
    expectError(await stack.gw.get(linksUrl(group.id), { token: owner.secret }), 404, {
      message: "No linked LDAP groups found",
    });
    const created = await post(group.id, { cn: "developers", group_access: 30, provider: "ldapmain" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ cn: "developers", group_access: 30, provider: "ldapmain", filter: null });
    const filter = await post(group.id, { filter: "(ou=eng)", group_access: 20, provider: "ldapmain" });
    expect(filter.body).toEqual({ cn: null, group_access: 20, provider: "ldapmain", filter: "(ou=eng)" });
    const listed = await stack.gw.get(linksUrl(encodeURIComponent(group.full_path)), { token: owner.secret });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { cn: "developers", group_access: 30, provider: "ldapmain", filter: null },
      { cn: null, group_access: 20, provider: "ldapmain", filter: "(ou=eng)" },
    ]);
  });

  it("keeps a link to a provider that is not configured (GitLab does not check it)", async () => {
    const group = await ownedGroup();
    const res = await post(group.id, { cn: "ops", group_access: 40, provider: "ldapnowhere" });
    expect(res.status).toBe(201);
  });

  it("answers Grape's 400s before looking at the group", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { group_access: 30, provider: "ldapmain" },
        "cn, filter are missing, exactly one parameter must be provided",
      ],
      [
        { cn: "a", filter: "(a=b)", group_access: 30, provider: "ldapmain" },
        "cn, filter are mutually exclusive",
      ],
      [{ cn: "a", provider: "ldapmain" }, "group_access is missing"],
      [{ cn: "a", group_access: 30 }, "provider is missing"],
      [{ cn: "a" }, "group_access is missing, provider is missing"],
      [{ cn: "a", group_access: 15, provider: "ldapmain" }, "group_access does not have a valid value"],
      [{ cn: "a", group_access: 60, provider: "ldapmain" }, "group_access does not have a valid value"],
      [{ cn: "a", group_access: "owner", provider: "ldapmain" }, "group_access is invalid"],
    ];
    // A group that does not exist: the 400 still comes first.
    for (const [json, error] of cases) expectError(await post(999_999_999, json), 400, { error });
  });

  it("answers 409 with the model's first message when the link cannot be saved", async () => {
    const group = await ownedGroup();
    expect((await post(group.id, { cn: "devs", group_access: 30, provider: "ldapmain" })).status).toBe(201);
    expectError(await post(group.id, { cn: "devs", group_access: 40, provider: "ldapmain" }), 409, {
      message: "Cn has already been taken",
    });
    // The same cn under another provider is another link.
    expect((await post(group.id, { cn: "devs", group_access: 30, provider: "ldapsecondary" })).status).toBe(
      201,
    );
    expect(
      (await post(group.id, { filter: "(uid=a*)", group_access: 30, provider: "ldapmain" })).status,
    ).toBe(201);
    expectError(await post(group.id, { filter: "(uid=a*)", group_access: 10, provider: "ldapmain" }), 409, {
      message: "Filter has already been taken",
    });
    expectError(await post(group.id, { filter: "(uid=a", group_access: 10, provider: "ldapmain" }), 409, {
      message: "Filter is invalid",
    });
    expectError(
      await post(group.id, { filter: "not a filter", group_access: 10, provider: "ldapmain" }),
      409,
      {
        message: "Filter is invalid",
      },
    );
    expectError(await post(group.id, { cn: "x".repeat(256), group_access: 10, provider: "ldapmain" }), 409, {
      message: "Cn is too long (maximum is 255 characters)",
    });
    expectError(await post(group.id, { cn: "x", group_access: 10, provider: "p".repeat(256) }), 409, {
      message: "Provider is too long (maximum is 255 characters)",
    });
    expectError(await post(group.id, { cn: "   ", group_access: 10, provider: "ldapmain" }), 409, {
      message: "Either LDAP group cn or LDAP user filter is required",
    });
  });
});

describe("who may manage links", () => {
  it("401 without a token on every route", async () => {
    for (const [method, path] of [
      ["GET", linksUrl(1)],
      ["POST", linksUrl(1)],
      ["DELETE", `${linksUrl(1)}/devs`],
      ["DELETE", `${linksUrl(1)}/ldapmain/devs`],
      ["DELETE", `${linksUrl(1)}?cn=devs&provider=ldapmain`],
      ["POST", "/api/v4/groups/1/ldap_sync"],
      ["GET", "/api/v4/ldap/groups"],
      ["GET", "/api/v4/ldap/ldapmain/groups"],
    ] as const)
      expectError(await stack.gw.request(method, path), 401, UNAUTHORIZED);
  });

  it("lets Owners (also of an ancestor) and administrators in; 403 for anyone else, and for a missing group", async () => {
    const group = await ownedGroup();
    const sub = await newGroup(stack.gw, owner.secret, { parentId: group.id });
    const maintainer = await memberOf(stack, owner.secret, group.id, 40);
    const developer = await memberOf(stack, owner.secret, group.id, 30);
    const outsider = await memberOf(stack, owner.secret, group.id, 0);
    const subOwner = await memberOf(stack, owner.secret, sub.id, 50);
    await copiedMembership(stack, group.id, developer.user.id, 30);
    await copiedMembership(stack, group.id, maintainer.user.id, 40);
    await copiedMembership(stack, sub.id, subOwner.user.id, 50);
    const json = { cn: "readers", group_access: 20, provider: "ldapmain" };
    for (const who of [maintainer, developer, outsider]) {
      expectError(await post(group.id, json, who.secret), 403, FORBIDDEN);
      expectError(await stack.gw.get(linksUrl(group.id), { token: who.secret }), 403, FORBIDDEN);
      expectError(
        await stack.gw.delete(`${linksUrl(group.id)}/readers`, { token: who.secret }),
        403,
        FORBIDDEN,
      );
    }
    // An Owner of the subgroup only manages the subgroup; the group's Owner manages both.
    expectError(await post(group.id, json, subOwner.secret), 403, FORBIDDEN);
    expect((await post(sub.id, json, subOwner.secret)).status).toBe(201);
    expect((await post(sub.id, { ...json, cn: "writers" })).status).toBe(201);
    expect((await post(group.id, json, admin)).status).toBe(201);
    // A group that does not exist is 403, not 404 (find_group without a bang).
    expectError(await post(999_999_999, json), 403, FORBIDDEN);
    expectError(
      await stack.gw.get(linksUrl(encodeURIComponent("no/such/group")), { token: admin }),
      403,
      FORBIDDEN,
    );
  });
});

describe("DELETE /groups/:id/ldap_group_links (three forms)", () => {
  it("deletes by cn under any provider, by provider and cn, and by cn or filter with provider", async () => {
    const group = await ownedGroup();
    for (const json of [
      { cn: "one", group_access: 10, provider: "ldapmain" },
      { cn: "one", group_access: 10, provider: "ldapalt" },
      { cn: "two", group_access: 10, provider: "ldapmain" },
      { cn: "three", group_access: 10, provider: "ldapmain" },
      { filter: "(ou=x)", group_access: 10, provider: "ldapmain" },
    ])
      expect((await post(group.id, json)).status).toBe(201);
    const del = (path: string) => stack.gw.delete(`${linksUrl(group.id)}${path}`, { token: owner.secret });
    // The deprecated /:cn deletes the first link with that cn, whatever its provider.
    expect((await del("/one")).status).toBe(204);
    expect((await del("/ldapmain/two")).status).toBe(204);
    expectError(await del("/ldapmain/two"), 404, { message: "Linked LDAP group not found" });
    expectError(await del("/ldapmain/one"), 404, { message: "Linked LDAP group not found" });
    expect((await del("/ldapalt/one")).status).toBe(204);
    expect((await del("?cn=three&provider=ldapmain")).status).toBe(204);
    expect((await del(`?filter=${encodeURIComponent("(ou=x)")}&provider=ldapmain`)).status).toBe(204);
    expectError(await del("?cn=three&provider=ldapmain"), 404, { message: "Linked LDAP group not found" });
    expectError(await del("?provider=ldapmain"), 400, {
      error: "cn, filter are missing, exactly one parameter must be provided",
    });
    expectError(await del("?cn=a&filter=b&provider=ldapmain"), 400, {
      error: "cn, filter are mutually exclusive",
    });
    expectError(await del("?cn=a"), 400, { error: "provider is missing" });
    expectError(await stack.gw.get(linksUrl(group.id), { token: owner.secret }), 404, {
      message: "No linked LDAP groups found",
    });
  });

  it("takes the parameter form's values from a JSON body too (gitbeaker)", async () => {
    const group = await ownedGroup();
    expect((await post(group.id, { cn: "body", group_access: 10, provider: "ldapmain" })).status).toBe(201);
    const res = await stack.gw.delete(linksUrl(group.id), {
      token: owner.secret,
      json: { cn: "body", provider: "ldapmain" },
    });
    expect(res.status).toBe(204);
  });
});
