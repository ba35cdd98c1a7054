/** PUT /groups/:id over HTTP: GitLab's statuses and bodies, as python-gitlab's save() and gitbeaker's edit send it. */
import {
  expectError,
  expectJsonHeaders,
  EXTERNAL_URL,
  FORBIDDEN,
  signedInUser,
  startStack,
  unique,
  UNAUTHORIZED,
  type Stack,
} from "./support";
import { insertMembership } from "../../services/groups/test/memberships";

let stack: Stack;
let owner: string;
beforeAll(async () => {
  stack = await startStack();
  owner = (await signedInUser(stack)).secret;
});
afterAll(() => stack.stop());

async function newGroup(token: string, extra: Record<string, unknown> = {}) {
  const path = unique("upd_");
  const res = await stack.gw.post("/api/v4/groups", { token, json: { name: path, path, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; path: string; full_path: string };
}

/** A membership written straight in the groups schema, once auth's event brought the user there. */
const addMember = (groupId: number, userId: number, level: number) =>
  insertMembership(stack.db, { groupId, userId, accessLevel: level });

it("updates with a JSON body (python-gitlab's save) and answers 200 GroupDetail with runners_token and projects", async () => {
  const g = await newGroup(owner);
  const newPath = unique("renamed_");
  const res = await stack.gw.put(`/api/v4/groups/${g.id}`, {
    token: owner,
    json: {
      name: "Renamed",
      path: newPath,
      description: "hello",
      visibility: "internal",
      lfs_enabled: false,
    },
  });
  expect(res.status).toBe(200);
  expectJsonHeaders(res);
  expect(res.body).toMatchObject({
    id: g.id,
    name: "Renamed",
    path: newPath,
    full_path: newPath,
    web_url: `${EXTERNAL_URL}/groups/${newPath}`,
    description: "hello",
    visibility: "internal",
    lfs_enabled: false,
    runners_token: expect.stringMatching(/^GR1348941[\w-]{20}$/),
    shared_with_groups: [],
    projects: [],
    shared_projects: [],
    prevent_sharing_groups_outside_hierarchy: false,
  });
  const shown = await stack.gw.get(`/api/v4/groups/${encodeURIComponent(newPath)}`, { token: owner });
  expect((shown.body as { runners_token: string }).runners_token).toBe(
    (res.body as { runners_token: string }).runners_token,
  );
});

it("takes a form body by URL-encoded path (gitbeaker's edit), and an empty PUT is a 200 no-op", async () => {
  const g = await newGroup(owner);
  const res = await stack.gw.put(`/api/v4/groups/${encodeURIComponent(g.full_path)}`, {
    token: owner,
    form: { request_access_enabled: "false", shared_runners_setting: "disabled_with_override" },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    request_access_enabled: false,
    shared_runners_setting: "disabled_with_override",
  });
  const empty = await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner });
  expect(empty.status).toBe(200);
  expect(empty.body).toMatchObject({ id: g.id, request_access_enabled: false });
});

it("answers 401, 404 and 403 in GitLab's order, and changes nothing", async () => {
  const g = await newGroup(owner);
  const developer = await signedInUser(stack);
  const stranger = await signedInUser(stack);
  await addMember(g.id, developer.user.id, 30);
  expectError(await stack.gw.put(`/api/v4/groups/${g.id}`, { json: { name: "x" } }), 401, UNAUTHORIZED);
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: stranger.secret, json: { name: "x" } }),
    404,
    { message: "404 Group Not Found" },
  );
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: developer.secret, json: { name: "x" } }),
    403,
    FORBIDDEN,
  );
  // A developer sees the group but no runners token.
  const seen = await stack.gw.get(`/api/v4/groups/${g.id}`, { token: developer.secret });
  expect(seen.status).toBe(200);
  expect(seen.body).not.toHaveProperty("runners_token");
  expect(
    ((await stack.gw.get(`/api/v4/groups/${g.id}`, { token: owner })).body as { name: string }).name,
  ).toBe(g.path);
});

it("answers validation failures in the attribute-keyed shape, unlike create's string", async () => {
  const g = await newGroup(owner);
  const other = await newGroup(owner);
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { path: other.path.toUpperCase() } }),
    400,
    {
      message: { path: ["has already been taken"] },
    },
  );
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { name: "<i>x</i>" } }),
    400,
    {
      message: {
        name: [
          "cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).",
          "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
        ],
      },
    },
  );
  const sub = await stack.gw.post("/api/v4/groups", {
    token: owner,
    json: { name: "s", path: "s1", parent_id: g.id, visibility: "private" },
  });
  expectError(
    await stack.gw.put(`/api/v4/groups/${(sub.body as { id: number }).id}`, {
      token: owner,
      json: { visibility: "public" },
    }),
    400,
    {
      message: {
        visibility_level: ["public is not allowed since the parent group has a private visibility."],
      },
    },
  );
});

it("answers Grape's 400 for values outside a parameter's list or type", async () => {
  const g = await newGroup(owner);
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { visibility: "secret" } }),
    400,
    {
      error: "visibility does not have a valid value",
    },
  );
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { shared_runners_setting: "maybe" } }),
    400,
    { error: "shared_runners_setting does not have a valid value" },
  );
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, {
      token: owner,
      json: { file_template_project_id: "abc", lfs_enabled: "perhaps" },
    }),
    400,
    { error: "lfs_enabled is invalid, file_template_project_id is invalid" },
  );
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { avatar: "not a file" } }),
    400,
    {
      error: "avatar is invalid",
    },
  );
});

it("lets only administrators set the CI minutes limits (403 for owners)", async () => {
  const g = await newGroup(owner);
  expectError(
    await stack.gw.put(`/api/v4/groups/${g.id}`, { token: owner, json: { shared_runners_minutes_limit: 5 } }),
    403,
    FORBIDDEN,
  );
  const res = await stack.gw.put(`/api/v4/groups/${g.id}`, {
    token: stack.rootToken,
    json: { shared_runners_minutes_limit: 5, extra_shared_runners_minutes_limit: 7 },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ shared_runners_minutes_limit: 5, extra_shared_runners_minutes_limit: 7 });
});

it("ignores parent_id (moving is POST /groups/:id/transfer) and shows prevent_sharing_groups_outside_hierarchy only at the top", async () => {
  const top = await newGroup(owner);
  const other = await newGroup(owner);
  const sub = (
    await stack.gw.post("/api/v4/groups", {
      token: owner,
      json: { name: "c", path: "c1", parent_id: top.id },
    })
  ).body as { id: number };
  const res = await stack.gw.put(`/api/v4/groups/${sub.id}`, {
    token: owner,
    json: { parent_id: other.id, prevent_sharing_groups_outside_hierarchy: true, description: "moved?" },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ parent_id: top.id, description: "moved?" });
  expect(res.body).not.toHaveProperty("prevent_sharing_groups_outside_hierarchy");
});
