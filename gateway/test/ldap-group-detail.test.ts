/**
 * The group detail's LDAP keys (GitLab's EE Group entity: `ldap_cn`, `ldap_access`, and
 * `ldap_group_links` when the group has links, for whoever may read the group): the gateway asks
 * the ldap service only when LDAP is configured, and a cached detail never outlives a link change.
 */
import { signedInUser, startStack, type SignedIn, type Stack } from "./support";
import { copiedMembership, link, linksUrl, newGroup } from "./ldap-support";

const SERVERS = JSON.stringify({
  main: { label: "LDAP", host: "127.0.0.1", port: 1, base: "dc=example,dc=org", uid: "uid" },
});

let stack: Stack;
let owner: SignedIn;

beforeAll(async () => {
  stack = await startStack({
    env: { CANOPY_LDAP_SERVERS: SERVERS },
    ldap: { CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0" },
    // The second and third gateways keep answers, as a deployment's do (a gateway that keeps none
    // does not bump the shared generation either).
    gateways: [{}, { CANOPY_ANSWER_CACHE_SECONDS: "60" }, { CANOPY_ANSWER_CACHE_SECONDS: "60" }],
  });
  owner = await signedInUser(stack);
});
afterAll(() => stack?.stop());

async function ownedGroup(visibility = "private") {
  const group = await newGroup(stack.gw, owner.secret, { visibility });
  await copiedMembership(stack, group.id, owner.user.id, 50);
  return group.id;
}

const detail = async (groupId: number, token?: string, gw = stack.gw) => {
  const res = await gw.get(`/api/v4/groups/${groupId}`, { token });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
};

const CN_LINK = { cn: "developers", group_access: 30, provider: "ldapmain", filter: null };
const FILTER_LINK = { cn: null, group_access: 20, provider: "ldapmain", filter: "(ou=eng)" };

it("shows ldap_group_links after ldap_cn and ldap_access once the group has links, to every reader", async () => {
  const groupId = await ownedGroup("public");
  const before = await detail(groupId, owner.secret);
  expect(before).toMatchObject({ ldap_cn: null, ldap_access: null });
  expect(before).not.toHaveProperty("ldap_group_links");

  await link(stack, owner.secret, groupId, { cn: "developers" }, 30);
  await link(stack, owner.secret, groupId, { filter: "(ou=eng)" }, 20);
  const linked = await detail(groupId, owner.secret);
  expect(linked.ldap_group_links).toEqual([CN_LINK, FILTER_LINK]);
  const keys = Object.keys(linked);
  expect(keys.indexOf("ldap_group_links")).toBe(keys.indexOf("ldap_access") + 1);
  // GitLab's entity has no permission on the key: anyone who sees the group sees its links.
  expect((await detail(groupId)).ldap_group_links).toEqual([CN_LINK, FILTER_LINK]);
  expect((await detail(groupId, (await signedInUser(stack)).secret)).ldap_group_links).toHaveLength(2);
  // The detail other routes answer with carries them too.
  const updated = await stack.gw.put(`/api/v4/groups/${groupId}`, {
    token: owner.secret,
    json: { description: "linked" },
  });
  expect(updated.status).toBe(200);
  expect((updated.body as Record<string, unknown>).ldap_group_links).toEqual([CN_LINK, FILTER_LINK]);

  for (const by of ["cn=developers", "filter=(ou=eng)"]) {
    const res = await stack.gw.delete(`${linksUrl(groupId)}?${by}&provider=ldapmain`, {
      token: owner.secret,
    });
    expect(res.status).toBe(204);
  }
  expect(await detail(groupId, owner.secret)).not.toHaveProperty("ldap_group_links");
});

it("drops a kept detail when a link is made or removed through another gateway", async () => {
  const groupId = await ownedGroup();
  const [caching, other] = [stack.gateways[1]!, stack.gateways[2]!];
  expect(await detail(groupId, owner.secret, caching)).not.toHaveProperty("ldap_group_links");
  const made = await other.post(linksUrl(groupId), {
    token: owner.secret,
    json: { cn: "ops", group_access: 40, provider: "ldapmain" },
  });
  expect(made.status).toBe(201);
  expect((await detail(groupId, owner.secret, caching)).ldap_group_links).toEqual([
    { cn: "ops", group_access: 40, provider: "ldapmain", filter: null },
  ]);
  // Read twice: the second answer comes from the cache and still holds the link.
  expect((await detail(groupId, owner.secret, caching)).ldap_group_links).toHaveLength(1);
  const res = await other.delete(`${linksUrl(groupId)}/ops`, { token: owner.secret });
  expect(res.status).toBe(204);
  expect(await detail(groupId, owner.secret, caching)).not.toHaveProperty("ldap_group_links");
});

it("never asks the ldap service when LDAP is not configured (the key is absent, as in GitLab)", async () => {
  const groupId = await ownedGroup();
  await link(stack, owner.secret, groupId, { cn: "ops" }, 40);
  // Pointed at nothing: a call would fail the detail.
  const withoutLdap = await stack.addGateway({ CANOPY_LDAP_SERVERS: "", CANOPY_LDAP_ADDRESS: "127.0.0.1:1" });
  const body = await detail(groupId, owner.secret, withoutLdap);
  expect(body).toMatchObject({ id: groupId, ldap_cn: null, ldap_access: null });
  expect(body).not.toHaveProperty("ldap_group_links");
});

it("shows ldap_group_links in lists too (GitLab's Group entity), on the linked groups only", async () => {
  const linked = await ownedGroup("public");
  const plain = await ownedGroup("public");
  await link(stack, owner.secret, linked, { cn: "developers" }, 30);
  const listed = async (url: string, gw = stack.gw) => {
    const res = await gw.get(url, { token: owner.secret });
    expect(res.status).toBe(200);
    const rows = res.body as Record<string, unknown>[];
    return new Map(rows.map((g) => [g.id as number, g]));
  };
  const all = await listed(`/api/v4/groups?owned=true&per_page=100`);
  expect(all.get(linked)).toMatchObject({ ldap_cn: null, ldap_access: null, ldap_group_links: [CN_LINK] });
  const keys = Object.keys(all.get(linked)!);
  expect(keys.indexOf("ldap_group_links")).toBe(keys.indexOf("ldap_access") + 1);
  expect(all.get(plain)).toMatchObject({ ldap_cn: null, ldap_access: null });
  expect(all.get(plain)).not.toHaveProperty("ldap_group_links");
  // Subgroup lists use the same entity.
  const child = await newGroup(stack.gw, owner.secret, { parentId: linked, visibility: "public" });
  await link(stack, owner.secret, child.id, { cn: "ops" }, 40);
  const subgroups = await listed(`/api/v4/groups/${linked}/subgroups`);
  expect(subgroups.get(child.id)!.ldap_group_links).toEqual([
    { cn: "ops", group_access: 40, provider: "ldapmain", filter: null },
  ]);
  // Without LDAP a list asks nothing and shows no links.
  const withoutLdap = await stack.addGateway({ CANOPY_LDAP_SERVERS: "", CANOPY_LDAP_ADDRESS: "127.0.0.1:1" });
  const bare = await listed(`/api/v4/groups?owned=true&per_page=100`, withoutLdap);
  expect(bare.get(linked)).not.toHaveProperty("ldap_group_links");
});
