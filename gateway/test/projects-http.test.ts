import {
  EXTERNAL_URL,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  ISO_TIME,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

type Json = Record<string, unknown>;

describe("the Projects API core over HTTP", () => {
  it("creates a personal project (201, GitLab's Project entity) and reads it by id and by URL-encoded path", async () => {
    const { user, secret: token } = await signedInUser(stack);
    const created = await stack.gw.post("/api/v4/projects", { token, json: { name: "Hello World" } });
    expect(created.status).toBe(201);
    expectJsonHeaders(created);
    const body = created.body as Json;
    const fullPath = `${user.username}/hello-world`;
    expect(body).toMatchObject({
      name: "Hello World",
      path: "hello-world",
      path_with_namespace: fullPath,
      name_with_namespace: `${user.name} / Hello World`,
      description: null,
      default_branch: null,
      visibility: "private",
      archived: false,
      web_url: `${EXTERNAL_URL}/${fullPath}`,
      http_url_to_repo: `${EXTERNAL_URL}/${fullPath}.git`,
      ssh_url_to_repo: `git@canopy.example.com:${fullPath}.git`,
      created_at: ISO_TIME,
      last_activity_at: ISO_TIME,
      star_count: 0,
      forks_count: 0,
      tag_list: [],
      topics: [],
      empty_repo: true,
      issues_enabled: true,
      merge_requests_enabled: true,
      issues_access_level: "enabled",
      creator_id: user.id,
      import_status: "none",
      shared_with_groups: [],
      namespace: { kind: "user", full_path: user.username, parent_id: null },
      owner: { id: user.id, username: user.username },
      permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null },
      marked_for_deletion_on: null,
    });
    const id = body.id as number;
    const byPath = await stack.gw.get(`/api/v4/projects/${encodeURIComponent(fullPath)}`, { token });
    expect((byPath.body as Json).id).toBe(id);
    expectError(await stack.gw.get(`/api/v4/projects/${id}`), 404, { message: "404 Project Not Found" });
  });

  it("answers GitLab's errors for bad input, missing rights and anonymous writes", async () => {
    const owner = await signedInUser(stack);
    const other = await signedInUser(stack);
    expectError(await stack.gw.post("/api/v4/projects", { token: owner.secret, json: {} }), 400, {
      error: "name, path are missing, at least one parameter must be provided",
    });
    expectError(await stack.gw.post("/api/v4/projects", { json: { name: "x" } }), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.post("/api/v4/projects", {
        token: owner.secret,
        json: { name: "x", visibility: "secret" },
      }),
      400,
      { error: "visibility does not have a valid value" },
    );
    expectError(
      await stack.gw.post("/api/v4/projects", {
        token: owner.secret,
        json: { name: "x", namespace_id: 987654321 },
      }),
      400,
      { message: { namespace: ["is not valid"] } },
    );
    expectError(
      await stack.gw.post("/api/v4/projects", { token: owner.secret, json: { path: "x.atom" } }),
      400,
      {
        message: {
          path: [
            "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
          ],
        },
      },
    );
    const path = unique("pub_");
    const p = (
      await stack.gw.post("/api/v4/projects", { token: owner.secret, json: { path, visibility: "public" } })
    ).body as Json;
    expectError(
      await stack.gw.post("/api/v4/projects", { token: owner.secret, json: { path: path.toUpperCase() } }),
      400,
      { message: { path: ["has already been taken"] } },
    );
    expectError(
      await stack.gw.put(`/api/v4/projects/${p.id}`, { token: other.secret, json: { description: "x" } }),
      403,
      FORBIDDEN,
    );
    expectError(await stack.gw.delete(`/api/v4/projects/${p.id}`, { token: other.secret }), 403, FORBIDDEN);
    expectError(
      await stack.gw.post(`/api/v4/projects/${p.id}/archive`, { token: other.secret }),
      403,
      FORBIDDEN,
    );
    expectError(await stack.gw.get("/api/v4/users/987654321/projects"), 404, {
      message: "404 User Not Found",
    });
  });

  it("updates, stars (201, then 304), archives and deletes (202)", async () => {
    const owner = await signedInUser(stack);
    const p = (await stack.gw.post("/api/v4/projects", { token: owner.secret, json: { name: unique("w") } }))
      .body as Json;
    const updated = await stack.gw.put(`/api/v4/projects/${p.id}`, {
      token: owner.secret,
      json: { description: "About", topics: ["a", "b"], merge_method: "ff", wiki_access_level: "disabled" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      description: "About",
      topics: ["a", "b"],
      merge_method: "ff",
      wiki_enabled: false,
    });
    expectError(
      await stack.gw.put(`/api/v4/projects/${p.id}`, {
        token: owner.secret,
        json: { merge_method: "squash" },
      }),
      400,
      { error: "merge_method does not have a valid value" },
    );
    const starred = await stack.gw.post(`/api/v4/projects/${p.id}/star`, { token: owner.secret });
    expect({ status: starred.status, count: (starred.body as Json).star_count }).toEqual({
      status: 201,
      count: 1,
    });
    const again = await stack.gw.post(`/api/v4/projects/${p.id}/star`, { token: owner.secret });
    expect({ status: again.status, text: again.text }).toEqual({ status: 304, text: "" });
    const archived = await stack.gw.post(`/api/v4/projects/${p.id}/archive`, { token: owner.secret });
    expect({ status: archived.status, archived: (archived.body as Json).archived }).toEqual({
      status: 201,
      archived: true,
    });
    const gone = await stack.gw.delete(`/api/v4/projects/${p.id}`, { token: owner.secret });
    expect({ status: gone.status, body: gone.body }).toEqual({
      status: 202,
      body: { message: "202 Accepted" },
    });
  });

  it("lists with GitLab's pagination headers, simple entities and the user's projects", async () => {
    const owner = await signedInUser(stack);
    const tag = unique("lh");
    for (let i = 0; i < 3; i++)
      await stack.gw.post("/api/v4/projects", {
        token: owner.secret,
        json: { path: `${tag}-${i}`, visibility: "public" },
      });
    const page = await stack.gw.get(`/api/v4/projects?search=${tag}&per_page=2&simple=true`, {
      token: owner.secret,
    });
    expect(page.status).toBe(200);
    expect(page.headers.get("x-total")).toBe("3");
    expect(page.headers.get("x-total-pages")).toBe("2");
    expect(page.headers.get("x-next-page")).toBe("2");
    expect(page.headers.get("link")).toContain('rel="next"');
    const items = page.body as Json[];
    expect(items.map((x) => x.path)).toEqual([`${tag}-2`, `${tag}-1`]);
    expect(items[0]).not.toHaveProperty("visibility");
    const anonymous = await stack.gw.get(
      `/api/v4/users/${owner.user.username}/projects?order_by=path&sort=asc`,
    );
    expect((anonymous.body as Json[]).map((x) => x.path)).toEqual([`${tag}-0`, `${tag}-1`, `${tag}-2`]);
    expectError(await stack.gw.get("/api/v4/projects?order_by=size"), 400, {
      error: "order_by does not have a valid value",
    });
  });

  it("filters by topic: every topic of the comma-separated list, case-insensitively", async () => {
    const owner = await signedInUser(stack);
    const tag = unique("tp");
    const made: Record<string, number> = {};
    for (const [name, topics] of [
      ["both", ["Go", "cli"]],
      ["go", ["go"]],
      ["none", []],
    ] as const) {
      const res = await stack.gw.post("/api/v4/projects", {
        token: owner.secret,
        json: { path: `${tag}-${name}`, topics },
      });
      made[name] = (res.body as Json).id as number;
    }
    const ids = async (query: string) =>
      (
        (await stack.gw.get(`/api/v4/projects?search=${tag}&${query}`, { token: owner.secret }))
          .body as Json[]
      )
        .map((x) => x.id)
        .sort((a, b) => Number(a) - Number(b));
    expect(await ids("topic=go")).toEqual([made.both, made.go]);
    expect(await ids("topic=GO,Cli")).toEqual([made.both]);
    expect(await ids("topic=go,rust")).toEqual([]);
    expect(await ids("topic=")).toEqual([made.both, made.go, made.none]);
    const personal = await stack.gw.get(`/api/v4/users/${owner.user.id}/projects?topic=cli`, {
      token: owner.secret,
    });
    expect((personal.body as Json[]).map((x) => x.id)).toEqual([made.both]);
  });
});
