import { createPool, type Pool } from "@canopy/kit";
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

jest.setTimeout(120_000);

type Json = Record<string, unknown>;
const api = "/api/v4";

let stack: Stack;
let projectsDb: Pool;
let groupsDb: Pool;
let owner: SignedIn;
let stranger: SignedIn;
let admin: string;
/** The world: group G (public) with subgroup S, projects in both, a project of H shared to G. */
const w = { g: 0, gPath: "", s: 0, h: 0, alpha: 0, beta: 0, gamma: 0, delta: 0, shared: 0 };

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

const names = (res: { body: unknown }) => (res.body as Json[]).map((p) => p.name);

beforeAll(async () => {
  stack = await startStack();
  const url = stack.authService.config.CANOPY_DATABASE_URL;
  projectsDb = createPool({ url, schema: "projects" });
  groupsDb = createPool({ url, schema: "groups" });
  owner = await signedInUser(stack);
  stranger = await signedInUser(stack);
  const root = await createAdmin(stack);
  admin = (await createToken(stack, root.id, ["api"])).token;
  const t = owner.secret;
  const prefix = unique("gp");
  const g = await createGroup(t, { name: prefix, path: prefix, visibility: "public" });
  w.g = g.id as number;
  w.gPath = prefix;
  w.s = (await createGroup(t, { name: "sub", path: "sub", parent_id: w.g, visibility: "public" }))
    .id as number;
  w.h = (await createGroup(t, { name: `${prefix}-h`, path: `${prefix}-h`, visibility: "public" }))
    .id as number;
  // Archive and star below check the owner's memberships in the projects service's copy, fed by
  // events: the owner's calls read their own writes there, with no wait here.
  // Creation order is the default order's (created_at desc): alpha, beta, gamma, delta, shared.
  w.alpha = await createProject(t, {
    name: "alpha",
    namespace_id: w.g,
    visibility: "public",
    description: "the first one",
    topics: ["Red", "blue"],
  });
  w.beta = await createProject(t, {
    name: "beta",
    namespace_id: w.g,
    visibility: "internal",
    topics: ["red"],
  });
  w.gamma = await createProject(t, {
    name: "gamma",
    namespace_id: w.g,
    visibility: "private",
    issues_access_level: "disabled",
    merge_requests_access_level: "disabled",
  });
  w.delta = await createProject(t, { name: "delta", namespace_id: w.s, visibility: "public" });
  w.shared = await createProject(t, { name: "shared-one", namespace_id: w.h, visibility: "public" });
  expect((await stack.gw.post(`${api}/projects/${w.beta}/archive`, { token: t })).status).toBe(201);
  expect((await stack.gw.post(`${api}/projects/${w.alpha}/star`, { token: t })).status).toBe(201);
  // Project shares have no API on this branch yet: the link as the share endpoint will write it.
  await projectsDb.query(
    "INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, $2, 30)",
    [w.shared, w.g],
  );
});
afterAll(async () => {
  await projectsDb.end();
  await groupsDb.end();
  await stack.stop();
});

describe("GET /groups/:id/projects", () => {
  it("shows anonymous callers the public projects of the group and those shared to it, newest first", async () => {
    const res = await stack.gw.get(`${api}/groups/${w.g}/projects`);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(["shared-one", "alpha"]);
    expect(res.headers.get("x-total")).toBe("2");
    const byPath = await stack.gw.get(
      `${api}/groups/${encodeURIComponent(w.gPath)}/projects?with_shared=false`,
    );
    expect(names(byPath)).toEqual(["alpha"]);
    const sub = await stack.gw.get(`${api}/groups/${w.g}/projects?include_subgroups=true`);
    expect(names(sub)).toEqual(["shared-one", "delta", "alpha"]);
    // The shared project shows its own namespace; the group's project the group.
    const [shared, alpha] = res.body as Json[];
    expect((shared!.namespace as Json).id).toBe(w.h);
    expect((alpha!.namespace as Json).id).toBe(w.g);
  });

  it("shows members every project, signed-in strangers the internal ones too", async () => {
    const t = owner.secret;
    expect(names(await stack.gw.get(`${api}/groups/${w.g}/projects`, { token: t }))).toEqual([
      "shared-one",
      "gamma",
      "beta",
      "alpha",
    ]);
    expect(names(await stack.gw.get(`${api}/groups/${w.g}/projects`, { token: stranger.secret }))).toEqual([
      "shared-one",
      "beta",
      "alpha",
    ]);
    expect(names(await stack.gw.get(`${api}/groups/${w.g}/projects`, { token: admin }))).toHaveLength(4);
  });

  it("filters by archived, visibility, search, starred, owned, topic and min_access_level", async () => {
    const get = async (q: string, token = owner.secret) =>
      names(await stack.gw.get(`${api}/groups/${w.g}/projects?${q}`, { token }));
    expect(await get("archived=true")).toEqual(["beta"]);
    expect(await get("archived=false")).toEqual(["shared-one", "gamma", "alpha"]);
    expect(await get("visibility=internal")).toEqual(["beta"]);
    expect(await get("search=first")).toEqual(["alpha"]);
    expect(await get("search=gam")).toEqual(["gamma"]);
    expect(await get("starred=true")).toEqual(["alpha"]);
    expect(await get("starred=true", stranger.secret)).toEqual([]);
    expect(await get("topic=red")).toEqual(["beta", "alpha"]);
    expect(await get("topic=red,BLUE")).toEqual(["alpha"]);
    // The owner owns H too; a member of G only through the share gets its level (Developer).
    expect(await get("owned=true")).toEqual(["shared-one", "gamma", "beta", "alpha"]);
    expect(await get("min_access_level=50")).toEqual(["shared-one", "gamma", "beta", "alpha"]);
    const dev = await signedInUser(stack);
    await stack.gw.post(`${api}/groups/${w.g}/members`, {
      token: owner.secret,
      json: { user_id: dev.user.id, access_level: 40 },
    });
    // The membership event names the new member: their next reads wait for the projects copy of it.
    expect(await get("min_access_level=40", dev.secret)).toEqual(["gamma", "beta", "alpha"]);
    expect(await get("min_access_level=30", dev.secret)).toEqual(["shared-one", "gamma", "beta", "alpha"]);
    expect(await get("min_access_level=10", stranger.secret)).toEqual([]);
    expect(await get("owned=true", stranger.secret)).toEqual([]);
  });

  it("filters by the features available to the caller", async () => {
    const get = async (q: string, token?: string) =>
      names(await stack.gw.get(`${api}/groups/${w.g}/projects?${q}`, { token }));
    expect(await get("with_issues_enabled=true", owner.secret)).toEqual(["shared-one", "beta", "alpha"]);
    expect(await get("with_merge_requests_enabled=true", owner.secret)).toEqual([
      "shared-one",
      "beta",
      "alpha",
    ]);
    expect(await get("with_issues_enabled=true")).toEqual(["shared-one", "alpha"]);
    // Ultimate (the tests' plan): no project has security reports, no pipeline runs here.
    expect(await get("with_security_reports=true")).toEqual([]);
  });

  it("orders by every column GitLab offers, the id tie-breaker following the sort", async () => {
    const get = async (q: string) =>
      names(await stack.gw.get(`${api}/groups/${w.g}/projects?${q}`, { token: owner.secret }));
    expect(await get("order_by=name&sort=asc")).toEqual(["alpha", "beta", "gamma", "shared-one"]);
    expect(await get("order_by=path&sort=desc")).toEqual(["shared-one", "gamma", "beta", "alpha"]);
    expect(await get("order_by=id&sort=asc")).toEqual(["alpha", "beta", "gamma", "shared-one"]);
    expect(await get("order_by=star_count")).toEqual(["alpha", "shared-one", "gamma", "beta"]);
    expect(await get("order_by=updated_at&sort=asc")).toHaveLength(4);
    expect(await get("order_by=last_activity_at")).toHaveLength(4);
    // Similarity: by score with a search, by name without one.
    expect(await get("order_by=similarity&search=alpha")).toEqual(["alpha"]);
    expect(await get("order_by=similarity")).toEqual(["alpha", "beta", "gamma", "shared-one"]);
  });

  it("answers the simple entity with simple=true", async () => {
    const res = await stack.gw.get(
      `${api}/groups/${w.g}/projects?simple=true&with_shared=false&archived=false`,
      {
        token: owner.secret,
      },
    );
    const first = (res.body as Json[])[0]!;
    expect(first.name).toBe("gamma");
    expect(first).toHaveProperty("path_with_namespace", `${w.gPath}/gamma`);
    expect(first).not.toHaveProperty("visibility");
    expect(first).not.toHaveProperty("archived");
  });

  it("pages by offset with every header, and by keyset", async () => {
    const res = await stack.gw.get(`${api}/groups/${w.g}/projects?per_page=1&page=2`, {
      token: owner.secret,
    });
    expect(names(res)).toEqual(["gamma"]);
    expect(res.headers.get("x-total")).toBe("4");
    expect(res.headers.get("x-total-pages")).toBe("4");
    expect(res.headers.get("x-page")).toBe("2");
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(res.headers.get("x-prev-page")).toBe("1");
    expect(res.headers.get("link")).toContain('rel="last"');
    const seen: unknown[] = [];
    let next = `${api}/groups/${w.g}/projects?pagination=keyset&order_by=id&sort=asc&per_page=3`;
    for (;;) {
      const page = await stack.gw.get(next, { token: owner.secret });
      expect(page.status).toBe(200);
      expect(page.headers.get("x-total")).toBeNull();
      seen.push(...names(page));
      const link = page.headers.get("link");
      if (!link) break;
      next =
        new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!).pathname +
        new URL(/<([^>]+)>/.exec(link)![1]!).search;
    }
    expect(seen).toEqual(["alpha", "beta", "gamma", "shared-one"]);
    expectError(
      await stack.gw.get(`${api}/groups/${w.g}/projects?pagination=keyset&order_by=similarity`),
      405,
      { error: "Keyset pagination is not yet available for this type of request" },
    );
  });

  it("answers 404 for a group the caller cannot see and 400 for bad parameters", async () => {
    const hidden = await createGroup(owner.secret, {
      name: unique("hid"),
      path: unique("hid"),
      visibility: "private",
    });
    const notFound = { message: "404 Group Not Found" };
    expectError(await stack.gw.get(`${api}/groups/${hidden.id}/projects`), 404, notFound);
    expectError(
      await stack.gw.get(`${api}/groups/${hidden.id}/projects`, { token: stranger.secret }),
      404,
      notFound,
    );
    expectError(await stack.gw.get(`${api}/groups/999999999/projects/shared`), 404, notFound);
    expectError(await stack.gw.get(`${api}/groups/${w.g}/projects?order_by=stars`), 400, {
      error: "order_by does not have a valid value",
    });
    expectError(await stack.gw.get(`${api}/groups/${w.g}/projects?archived=maybe`), 400, {
      error: "archived is invalid",
    });
    expectError(
      await stack.gw.get(`${api}/groups/${w.g}/projects?min_access_level=7`, { token: owner.secret }),
      400,
      {
        error: "min_access_level does not have a valid value",
      },
    );
  });
});

describe("GET /groups/:id/projects/shared", () => {
  it("lists only the projects shared to the group, with the filters, and no similarity order", async () => {
    expect(names(await stack.gw.get(`${api}/groups/${w.g}/projects/shared`))).toEqual(["shared-one"]);
    expect(names(await stack.gw.get(`${api}/groups/${w.g}/projects/shared?visibility=private`))).toEqual([]);
    expect(names(await stack.gw.get(`${api}/groups/${w.h}/projects/shared`))).toEqual([]);
    expectError(await stack.gw.get(`${api}/groups/${w.g}/projects/shared?order_by=similarity`), 400, {
      error: "order_by does not have a valid value",
    });
  });
});

describe("GET /groups/:id with its projects", () => {
  it("holds the visible projects directly in the group (newest first) and the shared ones", async () => {
    const anonymous = (await stack.gw.get(`${api}/groups/${w.g}`)).body as Json;
    expect((anonymous.projects as Json[]).map((p) => p.name)).toEqual(["alpha"]);
    expect((anonymous.shared_projects as Json[]).map((p) => p.name)).toEqual(["shared-one"]);
    const member = (await stack.gw.get(`${api}/groups/${w.g}`, { token: owner.secret })).body as Json;
    expect((member.projects as Json[]).map((p) => p.name)).toEqual(["gamma", "beta", "alpha"]);
    expect((member.projects as Json[])[0]).toHaveProperty("visibility", "private");
    const without = (await stack.gw.get(`${api}/groups/${w.g}?with_projects=false`)).body as Json;
    expect(without).not.toHaveProperty("projects");
    expect(without).not.toHaveProperty("shared_projects");
  });
});

describe("POST /groups/:id/projects/:project_id", () => {
  it("is for administrators only: 401 anonymous, 403 even for the owner, 404 for missing targets", async () => {
    const path = `${api}/groups/${w.s}/projects/${w.alpha}`;
    expectError(await stack.gw.post(path), 401, UNAUTHORIZED);
    expectError(await stack.gw.post(path, { token: owner.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.post(`${api}/groups/999999999/projects/${w.alpha}`, { token: admin }), 404, {
      message: "404 Group Not Found",
    });
    expectError(await stack.gw.post(`${api}/groups/${w.s}/projects/999999999`, { token: admin }), 404, {
      message: "404 Project Not Found",
    });
  });

  it("moves the project, lowers its visibility to the group's, answers the group, refuses GitLab's cases", async () => {
    const t = owner.secret;
    const target = await createGroup(t, { name: unique("tg"), path: unique("tg"), visibility: "internal" });
    const moving = await createProject(t, { name: "mover", namespace_id: w.h, visibility: "public" });
    const res = await stack.gw.post(`${api}/groups/${target.id}/projects/${moving}`, { token: admin });
    expect(res.status).toBe(201);
    const body = res.body as Json;
    expect(body.id).toBe(target.id);
    expect((body.projects as Json[]).map((p) => p.name)).toEqual(["mover"]);
    const moved = (await stack.gw.get(`${api}/projects/${moving}`, { token: t })).body as Json;
    expect(moved).toMatchObject({ visibility: "internal", path_with_namespace: `${target.full_path}/mover` });
    expectError(await stack.gw.post(`${api}/groups/${target.id}/projects/${moving}`, { token: admin }), 400, {
      message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}',
    });
    // By URL-encoded path; a project of that name is in the target already.
    const twin = await createProject(t, { name: "mover", namespace_id: w.h, visibility: "public" });
    expectError(
      await stack.gw.post(`${api}/groups/${target.id}/projects/${encodeURIComponent(`${w.gPath}-h/mover`)}`, {
        token: admin,
      }),
      400,
      {
        message:
          'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}',
      },
    );
    expect(
      ((await stack.gw.get(`${api}/projects/${twin}`, { token: t })).body as Json).namespace,
    ).toMatchObject({
      id: w.h,
    });
  });
});

describe("the groups service's rules that depend on projects", () => {
  it("refuses a subgroup taking a project's path and a visibility below a direct project's", async () => {
    // The groups service learns of projects by their events; the owner made alpha, so the groups
    // service reads after that write before it answers.
    expectError(
      await stack.gw.post(`${api}/groups`, {
        token: owner.secret,
        json: { name: "alpha", path: "alpha", parent_id: w.g, visibility: "public" },
      }),
      400,
      { message: 'Failed to save group {:path=>["has already been taken"]}' },
    );
    expectError(
      await stack.gw.put(`${api}/groups/${w.s}`, { token: owner.secret, json: { path: "ALPHA" } }),
      400,
      {
        message: { path: ["has already been taken"] },
      },
    );
    expectError(
      await stack.gw.put(`${api}/groups/${w.g}`, { token: owner.secret, json: { visibility: "internal" } }),
      400,
      {
        message: {
          visibility_level: [
            "internal is not allowed since this group contains projects with higher visibility.",
            "internal is not allowed since there are sub-groups with higher visibility.",
          ],
        },
      },
    );
  });

  it("sums the sizes projects report into the group statistics (administrators)", async () => {
    await waitFor("the groups copy of gamma", async () => {
      const { rowCount } = await groupsDb.query("SELECT 1 FROM projects WHERE id = $1", [w.gamma]);
      return Boolean(rowCount);
    });
    const stats = async () =>
      (
        (await stack.gw.get(`${api}/groups?search=${w.gPath}&statistics=true`, { token: admin }))
          .body as Json[]
      ).find((g) => g.id === w.g)!.statistics as Json;
    expect(await stats()).toMatchObject({ storage_size: 0, repository_size: 0 });
    // Canopy's projects weigh nothing; a size as a later report would set it.
    await groupsDb.query("UPDATE projects SET storage_size = 7, repository_size = 3 WHERE id IN ($1, $2)", [
      w.alpha,
      w.gamma,
    ]);
    expect(await stats()).toMatchObject({ storage_size: 14, repository_size: 6 });
  });
});
