/**
 * GitLab's has_projects over HTTP, with the real projects service publishing the events (reference
 * §2.4, §2.5, §4.1, §4.17): a member of one project inside a private group, and a member of a group
 * that project is shared with, read the project's group and its ancestors (200, in GET /groups with
 * and without all_available, exact X-Total), see the project in the group's project lists, and get
 * no more than reading: 403 on the member lists of the private groups where their level is none and
 * on writes; 404 beside and below. Answers are kept (the answer cache is on), so each change must
 * also reach the kept answers. A database and event stream of its own: the lists are exact.
 */
import { randomBytes } from "node:crypto";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { addGroupMember, knownUser, newGroup, newProject, type Json } from "./project-members-support";
import { expectError, FORBIDDEN, waitFor, startStack, type SignedIn, type Stack } from "./support";

let stack: Stack;
let db: ThrowawayDatabase;
let owner: SignedIn;
let root: { id: number };
let sub: { id: number };
let leaf: { id: number };
let sibling: { id: number };
let project: { id: number };

beforeAll(async () => {
  db = await throwawayDatabase("canopy_test_hasprojects_");
  const cached = {
    CANOPY_ANSWER_CACHE_SECONDS: "60",
    CANOPY_REDIS_KEY_PREFIX: `hasprojects${randomBytes(3).toString("hex")}:`,
  };
  stack = await startStack({ env: db.env, gateways: [cached] });
  owner = await knownUser(stack);
  root = await newGroup(stack, owner.secret, { visibility: "private" });
  sub = await newGroup(stack, owner.secret, { visibility: "private", parent_id: root.id });
  leaf = await newGroup(stack, owner.secret, { visibility: "private", parent_id: sub.id });
  sibling = await newGroup(stack, owner.secret, { visibility: "private", parent_id: root.id });
  project = await newProject(stack, owner.secret, { namespace_id: sub.id, visibility: "private" });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await db?.drop();
});

const get = (token: string, path: string) => stack.gw.get(`/api/v4${path}`, { token });
const ids = (body: unknown) => (body as Json[]).map((g) => g.id as number).sort((a, b) => a - b);

/** GET /groups as the user: the ids and X-Total (also with a page of one, the kept count's way). */
async function groupsOf(token: string, query = "") {
  const res = await get(token, `/groups?per_page=100${query}`);
  const paged = await get(token, `/groups?per_page=1${query}`);
  return {
    ids: ids(res.body),
    total: Number(res.headers.get("x-total")),
    paged: Number(paged.headers.get("x-total")),
  };
}

/** What a reader through the project may do, and may not, on the tree. */
async function expectProjectReader(token: string) {
  for (const g of [root, sub]) expect((await get(token, `/groups/${g.id}`)).status).toBe(200);
  for (const g of [leaf, sibling]) expect((await get(token, `/groups/${g.id}`)).status).toBe(404);
  const both = [root.id, sub.id].sort((a, b) => a - b);
  expect(await groupsOf(token)).toEqual({ ids: both, total: 2, paged: 2 });
  expect(await groupsOf(token, "&all_available=true")).toEqual({ ids: both, total: 2, paged: 2 });
  expect((await groupsOf(token, "&min_access_level=10")).ids).toEqual([]);
  expect(ids((await get(token, `/groups/${root.id}/subgroups`)).body)).toEqual([sub.id]);
  expect(ids((await get(token, `/groups/${root.id}/descendant_groups`)).body)).toEqual([sub.id]);
  // The project in the group's lists and detail.
  const projects = await get(token, `/groups/${sub.id}/projects`);
  expect(ids(projects.body)).toEqual([project.id]);
  const included = await get(token, `/groups/${root.id}/projects?include_subgroups=true`);
  expect(ids(included.body)).toEqual([project.id]);
  const detail = await get(token, `/groups/${sub.id}`);
  expect(ids((detail.body as Json).projects)).toEqual([project.id]);
  // read_group_member: not on a private group where their level is none (§4.17).
  for (const g of [root, sub])
    for (const path of ["members", "members/all", `members/${owner.user.id}`, `members/all/${owner.user.id}`])
      expectError(await get(token, `/groups/${g.id}/${path}`), 403, FORBIDDEN);
  // Nothing but reading (§2.5: visible, so 403, not 404).
  expectError(
    await stack.gw.put(`/api/v4/groups/${sub.id}`, { token, json: { description: "x" } }),
    403,
    FORBIDDEN,
  );
  expectError(await stack.gw.delete(`/api/v4/groups/${sub.id}`, { token }), 403, FORBIDDEN);
  expectError(
    await stack.gw.post("/api/v4/groups", {
      token,
      json: { name: "n", path: `n${Date.now()}`, parent_id: sub.id },
    }),
    403,
    FORBIDDEN,
  );
  expectError(
    await stack.gw.post(`/api/v4/groups/${sub.id}/members`, {
      token,
      json: { user_id: owner.user.id, access_level: 10 },
    }),
    403,
    FORBIDDEN,
  );
}

/** A stranger to the tree again: 404 everywhere, nothing listed (waits out the copies' delay). */
async function expectStranger(token: string) {
  await waitFor(
    "the group to be hidden again",
    async () => (await get(token, `/groups/${root.id}`)).status === 404,
    15_000,
  );
  for (const g of [root, sub, leaf, sibling]) expect((await get(token, `/groups/${g.id}`)).status).toBe(404);
  expect(await groupsOf(token)).toEqual({ ids: [], total: 0, paged: 0 });
  expect((await get(token, `/groups/${sub.id}/projects`)).status).toBe(404);
}

it("a member of one project reads its group and ancestors, and no more, while the membership lasts", async () => {
  const member = await knownUser(stack);
  await expectStranger(member.secret);
  const added = await stack.gw.post(`/api/v4/projects/${project.id}/members`, {
    token: owner.secret,
    json: { user_id: member.user.id, access_level: 50 },
  });
  expect(added.status).toBe(201);
  await waitFor(
    "the group to be readable",
    async () => (await get(member.secret, `/groups/${root.id}`)).status === 200,
    15_000,
  );
  await expectProjectReader(member.secret);

  const removed = await stack.gw.delete(`/api/v4/projects/${project.id}/members/${member.user.id}`, {
    token: owner.secret,
  });
  expect(removed.status).toBe(204);
  await expectStranger(member.secret);
});

it("a member of a group the project is shared with reads them too, until the share goes", async () => {
  const member = await knownUser(stack);
  // The project's Owner may share it only with a group they read: their own.
  const team = await newGroup(stack, owner.secret, { visibility: "private" });
  const squad = await newGroup(stack, owner.secret, { visibility: "private", parent_id: team.id });
  // A member of the invited group's parent: GitLab's members_with_parents.
  await addGroupMember(stack, owner.secret, team.id, member.user.id, 10);
  const own = [team.id, squad.id].sort((a, b) => a - b);
  expect((await get(member.secret, `/groups/${root.id}`)).status).toBe(404);
  expect((await groupsOf(member.secret)).ids).toEqual(own);
  // A public project shared with the private subgroup: its shared_with_groups shows the subgroup
  // only to those who may read it (the projects service's read_group says the same).
  const publicGroup = await newGroup(stack, owner.secret, { visibility: "public" });
  const visible = await newProject(stack, owner.secret, {
    namespace_id: publicGroup.id,
    visibility: "public",
  });
  const linked = await stack.gw.post(`/api/v4/projects/${visible.id}/share`, {
    token: owner.secret,
    json: { group_id: sub.id, group_access: 10 },
  });
  expect(linked.status).toBe(201);
  const sharedWith = async () =>
    (((await get(member.secret, `/projects/${visible.id}`)).body as Json).shared_with_groups as Json[]).map(
      (g) => g.group_id,
    );
  expect(await sharedWith()).toEqual([]);
  const shared = await stack.gw.post(`/api/v4/projects/${project.id}/share`, {
    token: owner.secret,
    json: { group_id: squad.id, group_access: 20 },
  });
  expect(shared.status).toBe(201);
  await waitFor(
    "the group to be readable",
    async () => (await get(member.secret, `/groups/${root.id}`)).status === 200,
    15_000,
  );
  expect((await get(member.secret, `/groups/${sub.id}`)).status).toBe(200);
  expect((await get(member.secret, `/groups/${leaf.id}`)).status).toBe(404);
  expect(await sharedWith()).toEqual([sub.id]);
  expectError(await get(member.secret, `/groups/${sub.id}/members`), 403, FORBIDDEN);
  // Beside their own groups (and their own groups' subgroups).
  const listed = await groupsOf(member.secret);
  expect(listed.ids).toEqual([root.id, sub.id, ...own].sort((a, b) => a - b));
  expect(listed.total).toBe(4);
  expect(listed.paged).toBe(4);

  const unshared = await stack.gw.delete(`/api/v4/projects/${project.id}/share/${squad.id}`, {
    token: owner.secret,
  });
  expect(unshared.status).toBe(204);
  await waitFor(
    "the group to be hidden",
    async () => (await get(member.secret, `/groups/${root.id}`)).status === 404,
    15_000,
  );
  expect(await groupsOf(member.secret)).toEqual({ ids: own, total: 2, paged: 2 });
});

it("a blocked project member gets nothing", async () => {
  const member = await knownUser(stack);
  await stack.gw.post(`/api/v4/projects/${project.id}/members`, {
    token: owner.secret,
    json: { user_id: member.user.id, access_level: 30 },
  });
  await waitFor(
    "the group to be readable",
    async () => (await get(member.secret, `/groups/${root.id}`)).status === 200,
    15_000,
  );
  const block = await stack.gw.post(`/api/v4/users/${member.user.id}/block`, { token: stack.rootToken });
  expect(block.status).toBe(201);
  // A blocked user cannot authenticate at all (403 for every request, as GitLab's API).
  expect((await get(member.secret, `/groups/${root.id}`)).status).toBe(403);
  await waitFor(
    "the block to reach groups",
    async () =>
      (
        await stack.db.query("SELECT 1 FROM groups.users WHERE id = $1 AND state = 'blocked'", [
          member.user.id,
        ])
      ).rowCount === 1,
    15_000,
  );
});
