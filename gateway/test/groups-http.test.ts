import {
  expectError,
  expectJsonHeaders,
  signedInUser,
  startStack,
  unique,
  UNAUTHORIZED,
  EXTERNAL_URL,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** A user the groups service has heard of (auth's event reached it), with a token. */
async function member() {
  const signedIn = await signedInUser(stack);
  return signedIn;
}

describe("POST /groups and GET /groups/:id over HTTP", () => {
  it("creates a group (201, GroupDetail) and reads it back by id and by URL-encoded path", async () => {
    const { secret: token } = await member();
    const path = unique("grp_");
    const created = await stack.gw.post("/api/v4/groups", { token, json: { name: "My Group", path } });
    expect(created.status).toBe(201);
    expectJsonHeaders(created);
    const body = created.body as Record<string, unknown>;
    expect(body).toMatchObject({
      name: "My Group",
      path,
      full_path: path,
      full_name: "My Group",
      web_url: `${EXTERNAL_URL}/groups/${path}`,
      visibility: "private",
      parent_id: null,
      avatar_url: null,
      auto_devops_enabled: null,
      emails_disabled: null,
      mentions_disabled: null,
      marked_for_deletion_on: null,
      shared_with_groups: [],
      projects: [],
      shared_projects: [],
    });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const sub = await stack.gw.post("/api/v4/groups", {
      token,
      form: { name: "Sub", path: "sub", parent_id: String(body.id) },
    });
    expect(sub.status).toBe(201);
    const byPath = await stack.gw.get(`/api/v4/groups/${encodeURIComponent(`${path}/sub`)}`, { token });
    expect(byPath.status).toBe(200);
    expect(byPath.body).toMatchObject({ id: (sub.body as { id: number }).id, full_name: "My Group / Sub" });
  });

  it("answers GitLab's errors: 401, missing params, parent 0, invisible group", async () => {
    const { secret: token } = await member();
    expectError(
      await stack.gw.post("/api/v4/groups", { json: { name: "x", path: unique("p") } }),
      401,
      UNAUTHORIZED,
    );
    expectError(await stack.gw.post("/api/v4/groups", { token, json: {} }), 400, {
      error: "name is missing, path is missing",
    });
    expectError(
      await stack.gw.post("/api/v4/groups", { token, json: { name: "x", path: unique("p"), parent_id: 0 } }),
      404,
      {
        message: "404 Group Not Found",
      },
    );
    expectError(
      await stack.gw.post("/api/v4/groups", { token, json: { name: "x", path: "x", visibility: "secret" } }),
      400,
      {
        error: "visibility does not have a valid value",
      },
    );
    const path = unique("hidden_");
    await stack.gw.post("/api/v4/groups", { token, json: { name: "h", path } });
    expectError(await stack.gw.get(`/api/v4/groups/${path}`), 404, { message: "404 Group Not Found" });
    const other = await member();
    expectError(await stack.gw.get(`/api/v4/groups/${path}`, { token: other.secret }), 404, {
      message: "404 Group Not Found",
    });
  });

  it("answers a taken path as GitLab's create does: one string", async () => {
    const { secret: token } = await member();
    const path = unique("taken_");
    await stack.gw.post("/api/v4/groups", { token, json: { name: "a", path } });
    expectError(await stack.gw.post("/api/v4/groups", { token, json: { name: "b", path } }), 400, {
      message: 'Failed to save group {:path=>["has already been taken"]}',
    });
  });
});

describe("usernames and top-level group paths share one set of routes", () => {
  it("refuses a new user, or a rename, to the path of an existing group (400, nothing written)", async () => {
    const { secret: token } = await member();
    const path = unique("route_");
    await stack.gw.post("/api/v4/groups", { token, json: { name: "r", path } });
    const taken = { message: { username: ["has already been taken"] } };
    const attempt = await stack.gw.post("/api/v4/users", {
      token: stack.rootToken,
      json: {
        username: path.toUpperCase(),
        email: `${path}@example.com`,
        name: "N",
        password: "s3cret-Passw0rd!",
      },
    });
    expectError(attempt, 400, taken);
    const { rows } = await stack.db.query("SELECT 1 FROM auth.users WHERE lower(email) = lower($1)", [
      `${path}@example.com`,
    ]);
    expect(rows).toEqual([]);
    const other = await member();
    expectError(
      await stack.gw.put(`/api/v4/users/${other.user.id}`, {
        token: stack.rootToken,
        json: { username: path },
      }),
      400,
      taken,
    );
    const renamed = await stack.gw.put(`/api/v4/users/${other.user.id}`, {
      token: stack.rootToken,
      json: { username: other.user.username, name: "Same Username" },
    });
    expect(renamed.status).toBe(200);
  });
});
