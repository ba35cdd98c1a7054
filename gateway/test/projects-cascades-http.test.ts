import {
  createAdmin,
  createToken,
  expectError,
  FORBIDDEN,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  waitFor,
  type SignedIn,
  type Stack,
} from "./support";

/**
 * The projects rules that follow other changes, seen through the API: custom attributes on the group
 * project lists, the group answers' projects, project restore, similarity on GET /projects, a group
 * member's removal reaching their project memberships, and a group's lifecycle reaching its projects.
 * The stack runs the default plan (ultimate): DELETE marks, restore exists.
 */
jest.setTimeout(120_000);

type Json = Record<string, unknown>;
const api = "/api/v4";

let stack: Stack;
let owner: SignedIn;
let stranger: SignedIn;
let admin: string;

async function createGroup(token: string, json: Json): Promise<Json> {
  const res = await stack.gw.post(`${api}/groups`, { token, json });
  expect(res.status).toBe(201);
  return res.body as Json;
}

async function createProject(token: string, json: Json): Promise<number> {
  const res = await stack.gw.post(`${api}/projects`, { token, json });
  expect(res.status).toBe(201);
  return (res.body as Json).id as number;
}

const ids = (body: unknown) => (body as Json[]).map((p) => p.id);
/** A group of the owner's: their project writes right after see it (read your writes, no wait). */
const newGroup = (json: Json = {}) => {
  const path = unique("cg");
  return createGroup(owner.secret, { name: path, path, visibility: "public", ...json });
};

beforeAll(async () => {
  stack = await startStack();
  owner = await signedInUser(stack);
  stranger = await signedInUser(stack);
  const root = await createAdmin(stack);
  admin = (await createToken(stack, root.id, ["api"])).token;
});
afterAll(async () => {
  await stack.stop();
});

describe("custom attributes on the group project lists", () => {
  it("filters and shows them for administrators, ignores both for everyone else", async () => {
    const g = (await newGroup()).id as number;
    const h = (await newGroup()).id as number;
    const a = await createProject(owner.secret, { name: "a", namespace_id: g, visibility: "public" });
    const b = await createProject(owner.secret, { name: "b", namespace_id: g, visibility: "public" });
    const c = await createProject(owner.secret, { name: "c", namespace_id: h, visibility: "public" });
    const shared = await stack.gw.post(`${api}/projects/${c}/share`, {
      token: owner.secret,
      json: { group_id: g, group_access: 30 },
    });
    expect(shared.status).toBe(201);
    for (const id of [a, c])
      expect(
        (
          await stack.gw.put(`${api}/projects/${id}/custom_attributes/tier`, {
            token: admin,
            form: { value: "gold" },
          })
        ).status,
      ).toBe(200);
    const gold = [{ key: "tier", value: "gold" }];

    const list = `${api}/groups/${g}/projects?custom_attributes[tier]=gold&with_custom_attributes=true`;
    const byAdmin = await stack.gw.get(list, { token: admin });
    expect(byAdmin.status).toBe(200);
    expect(ids(byAdmin.body)).toEqual([c, a]);
    expect((byAdmin.body as Json[]).map((p) => p.custom_attributes)).toEqual([gold, gold]);
    expect(byAdmin.headers.get("x-total")).toBe("2");
    const simple = await stack.gw.get(`${list}&simple=true`, { token: admin });
    expect((simple.body as Json[]).map((p) => p.custom_attributes)).toEqual([gold, gold]);
    const notShown = await stack.gw.get(`${api}/groups/${g}/projects?custom_attributes[tier]=gold`, {
      token: admin,
    });
    expect(ids(notShown.body)).toEqual([c, a]);
    expect((notShown.body as Json[]).some((p) => "custom_attributes" in p)).toBe(false);
    const silver = await stack.gw.get(`${api}/groups/${g}/projects?custom_attributes[tier]=silver`, {
      token: admin,
    });
    expect(silver.body).toEqual([]);

    const byOwner = await stack.gw.get(list, { token: owner.secret });
    expect(ids(byOwner.body)).toEqual([c, b, a]);
    expect((byOwner.body as Json[]).some((p) => "custom_attributes" in p)).toBe(false);

    const sharedList = `${api}/groups/${g}/projects/shared?with_custom_attributes=true`;
    const sharedByAdmin = await stack.gw.get(`${sharedList}&custom_attributes[tier]=gold`, { token: admin });
    expect(ids(sharedByAdmin.body)).toEqual([c]);
    expect((sharedByAdmin.body as Json[])[0]!.custom_attributes).toEqual(gold);
    expect(
      (await stack.gw.get(`${sharedList}&custom_attributes[tier]=silver`, { token: admin })).body,
    ).toEqual([]);
    expect(
      ids((await stack.gw.get(`${sharedList}&custom_attributes[tier]=silver`, { token: owner.secret })).body),
    ).toEqual([c]);
  });
});

describe("the group answers hold the group's projects", () => {
  it("POST /groups/:id/share, /transfer and /restore answer the visible projects and shared projects", async () => {
    const g = await newGroup();
    const other = await newGroup();
    const own = await createProject(owner.secret, { name: "own", namespace_id: g.id, visibility: "private" });
    const lent = await createProject(owner.secret, {
      name: "lent",
      namespace_id: other.id,
      visibility: "public",
    });
    await stack.gw.post(`${api}/projects/${lent}/share`, {
      token: owner.secret,
      json: { group_id: g.id, group_access: 20 },
    });

    const share = await stack.gw.post(`${api}/groups/${g.id}/share`, {
      token: owner.secret,
      json: { group_id: other.id, group_access: 30 },
    });
    expect(share.status).toBe(201);
    expect(ids((share.body as Json).projects)).toEqual([own]);
    expect(ids((share.body as Json).shared_projects)).toEqual([lent]);

    const moved = await newGroup();
    const inMoved = await createProject(owner.secret, {
      name: "m",
      namespace_id: moved.id,
      visibility: "public",
    });
    const transfer = await stack.gw.post(`${api}/groups/${moved.id}/transfer`, {
      token: owner.secret,
      json: { group_id: g.id },
    });
    expect(transfer.status).toBe(201);
    expect(ids((transfer.body as Json).projects)).toEqual([inMoved]);

    // Marked, the group's projects leave the lists; the restore answer holds them at once.
    expect((await stack.gw.delete(`${api}/groups/${g.id}`, { token: owner.secret })).status).toBe(202);
    const listed = () =>
      stack.gw
        .get(`${api}/projects?membership=true&per_page=100`, { token: owner.secret })
        .then((r) => ids(r.body));
    // The owner reads their own write at once: the projects service waits for its copy of the mark.
    expect(await listed()).not.toContain(own);
    const restore = await stack.gw.post(`${api}/groups/${g.id}/restore`, { token: owner.secret });
    expect(restore.status).toBe(201);
    expect(restore.body).toMatchObject({ marked_for_deletion_on: null });
    expect(ids((restore.body as Json).projects)).toEqual([own]);
    expect(ids((restore.body as Json).shared_projects)).toEqual([lent]);
    expect(await listed()).toContain(own);
  });
});

describe("POST /projects/:id/restore", () => {
  it("restores a marked project for its Owner: 401, 404, 403 and 400 in GitLab's order", async () => {
    const g = await newGroup({ visibility: "private" });
    const maintainer = await signedInUser(stack);
    const id = await createProject(owner.secret, { name: "undo", namespace_id: g.id, visibility: "private" });
    const added = await stack.gw.post(`${api}/projects/${id}/members`, {
      token: owner.secret,
      json: { user_id: maintainer.user.id, access_level: 40 },
    });
    expect(added.status).toBe(201);
    const restore = `${api}/projects/${id}/restore`;

    expectError(await stack.gw.post(restore), 401, UNAUTHORIZED);
    expectError(await stack.gw.post(restore, { token: stranger.secret }), 404, {
      message: "404 Project Not Found",
    });
    expectError(await stack.gw.post(restore, { token: maintainer.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.post(restore, { token: owner.secret }), 400, {
      message: "Project has not been marked for deletion",
    });

    expect((await stack.gw.post(`${api}/projects/${id}/archive`, { token: owner.secret })).status).toBe(201);
    expect((await stack.gw.delete(`${api}/projects/${id}`, { token: owner.secret })).status).toBe(202);
    const marked = (await stack.gw.get(`${api}/projects/${id}`, { token: owner.secret })).body as Json;
    expect(marked.marked_for_deletion_on).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\d$/));
    expectError(await stack.gw.post(restore, { token: maintainer.secret }), 403, FORBIDDEN);

    const restored = await stack.gw.post(restore, { token: owner.secret });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({
      id,
      marked_for_deletion_on: null,
      marked_for_deletion_at: null,
      archived: false,
    });
    expect((await stack.gw.get(`${api}/projects/${id}`, { token: admin })).body).toMatchObject({
      marked_for_deletion_on: null,
      archived: false,
    });
    expectError(await stack.gw.post(restore, { token: admin }), 400, {
      message: "Project has not been marked for deletion",
    });
    // Marked again, an administrator restores too.
    expect((await stack.gw.delete(`${api}/projects/${id}`, { token: owner.secret })).status).toBe(202);
    expect((await stack.gw.post(restore, { token: admin })).status).toBe(201);
  });
});

describe("GET /projects?order_by=similarity", () => {
  it("ranks the search's best matches first whatever `sort` says; without a search orders by name", async () => {
    const user = await signedInUser(stack);
    const q = unique("simq").replace(/[^a-z0-9]/gi, "");
    const exact = await createProject(user.secret, { name: q, visibility: "private" });
    const longer = await createProject(user.secret, {
      name: `${q} with many more words`,
      visibility: "private",
    });
    const described = await createProject(user.secret, {
      name: "other thing",
      description: `about ${q}`,
      visibility: "private",
    });
    const list = `${api}/projects?owned=true&order_by=similarity`;
    for (const sort of ["desc", "asc"]) {
      const res = await stack.gw.get(`${list}&search=${q}&sort=${sort}`, { token: user.secret });
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([exact, longer, described]);
    }
    expect(ids((await stack.gw.get(list, { token: user.secret })).body)).toEqual([described, exact, longer]);
    expectError(await stack.gw.get(`${list}&search=${q}&pagination=keyset`, { token: user.secret }), 405, {
      error: "Keyset pagination is not yet available for this type of request",
    });
  });
});

describe("removing a member from a group", () => {
  it("removes their memberships in the group's and subgroups' projects unless skip_subresources", async () => {
    const g = await newGroup({ visibility: "private" });
    const s = await createGroup(owner.secret, {
      name: "sub",
      path: "sub",
      parent_id: g.id,
      visibility: "private",
    });
    const elsewhere = await newGroup({ visibility: "private" });
    const p1 = await createProject(owner.secret, { name: "p1", namespace_id: g.id, visibility: "private" });
    const p2 = await createProject(owner.secret, { name: "p2", namespace_id: s.id, visibility: "private" });
    const p3 = await createProject(owner.secret, {
      name: "p3",
      namespace_id: elsewhere.id,
      visibility: "private",
    });
    const kept = await signedInUser(stack);
    const gone = await signedInUser(stack);
    for (const user of [kept, gone]) {
      const joined = await stack.gw.post(`${api}/groups/${g.id}/members`, {
        token: owner.secret,
        json: { user_id: user.user.id, access_level: 30 },
      });
      expect(joined.status).toBe(201);
      for (const project of [p1, p2, p3]) {
        const res = await stack.gw.post(`${api}/projects/${project}/members`, {
          token: owner.secret,
          json: { user_id: user.user.id, access_level: 40 },
        });
        expect(res.status).toBe(201);
      }
    }
    const memberIds = async (project: number) =>
      ids((await stack.gw.get(`${api}/projects/${project}/members`, { token: owner.secret })).body);

    const skipped = await stack.gw.delete(
      `${api}/groups/${g.id}/members/${kept.user.id}?skip_subresources=true`,
      { token: owner.secret },
    );
    expect(skipped.status).toBe(204);
    expect(
      (await stack.gw.delete(`${api}/groups/${g.id}/members/${gone.user.id}`, { token: owner.secret }))
        .status,
    ).toBe(204);
    // The remover reads their own write at once: the cascade ran in the transaction applying it.
    expect(await memberIds(p1)).not.toContain(gone.user.id);
    expect(await memberIds(p2)).not.toContain(gone.user.id);
    // Events are applied in order: the skipped removal came first and kept everything.
    for (const project of [p1, p2, p3]) expect(await memberIds(project)).toContain(kept.user.id);
    expect(await memberIds(p3)).toContain(gone.user.id);
    expectError(await stack.gw.get(`${api}/projects/${p1}`, { token: gone.secret }), 404, {
      message: "404 Project Not Found",
    });
    expect((await stack.gw.get(`${api}/projects/${p3}`, { token: gone.secret })).status).toBe(200);
  });
});

describe("a group's lifecycle carries its projects", () => {
  it("a removed subgroup takes its projects; a transferred group's projects follow its path", async () => {
    const g = await newGroup();
    const doomed = await createGroup(owner.secret, {
      name: "doomed",
      path: "doomed",
      parent_id: g.id,
      visibility: "public",
    });
    const inDoomed = await createProject(owner.secret, {
      name: "d1",
      namespace_id: doomed.id,
      visibility: "public",
    });
    expect((await stack.gw.delete(`${api}/groups/${doomed.id}`, { token: owner.secret })).status).toBe(202);
    const removal = await stack.gw.delete(
      `${api}/groups/${doomed.id}?permanently_remove=true&full_path=${encodeURIComponent(doomed.full_path as string)}`,
      { token: owner.secret },
    );
    expect(removal.status).toBe(202);
    await waitFor(
      "the removed group's project gone",
      async () => (await stack.gw.get(`${api}/projects/${inDoomed}`, { token: admin })).status === 404,
      10_000,
    );

    const moving = await newGroup();
    const inMoving = await createProject(owner.secret, {
      name: "t1",
      namespace_id: moving.id,
      visibility: "public",
    });
    const moved = await stack.gw.post(`${api}/groups/${moving.id}/transfer`, {
      token: owner.secret,
      json: { group_id: g.id },
    });
    expect(moved.status).toBe(201);
    const newPath = `${g.full_path as string}/${moving.path as string}/t1`;
    await waitFor("the project's path following its group", async () => {
      const res = await stack.gw.get(`${api}/projects/${inMoving}`);
      return (res.body as Json).path_with_namespace === newPath;
    });
    const subtree = await stack.gw.get(`${api}/groups/${g.id}/projects?include_subgroups=true`);
    expect(ids(subtree.body)).toEqual([inMoving]);
    expect((await stack.gw.get(`${api}/projects/${encodeURIComponent(newPath)}`)).status).toBe(200);
  });
});
