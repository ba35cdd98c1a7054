import {
  createAdmin,
  createToken,
  expectError,
  FORBIDDEN,
  ISO_TIME,
  startStack,
  UNAUTHORIZED,
  type Stack,
} from "./support";
import {
  addGroupMember,
  knownUser,
  newGroup,
  newProject,
  recordedSubjects,
  type Json,
} from "./project-members-support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const NOT_FOUND_MEMBER = { message: "404 Not found" };
const members = (id: number | string) => `/api/v4/projects/${id}/members`;
const usernames = (body: unknown) => (body as Json[]).map((m) => m.username);

describe("project members over HTTP", () => {
  it("lists the holder of a personal project, adds, changes and removes members with GitLab's answers and events", async () => {
    const since = new Date(Date.now() - 1000);
    const owner = await knownUser(stack);
    const dev = await knownUser(stack);
    const maint = await knownUser(stack);
    const extra = await knownUser(stack);
    const stranger = await knownUser(stack);
    const project = await newProject(stack, owner.secret);
    const id = project.id;

    expectError(await stack.gw.get(members(id)), 401, UNAUTHORIZED);
    expectError(await stack.gw.get(members(id), { token: stranger.secret }), 404, {
      message: "404 Project Not Found",
    });
    const first = await stack.gw.get(members(id), { token: owner.secret });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-total")).toBe("1");
    expect(first.body).toEqual([
      expect.objectContaining({
        id: owner.user.id,
        username: owner.user.username,
        access_level: 50,
        created_at: ISO_TIME,
        expires_at: null,
        state: "active",
        membership_state: "active",
      }),
    ]);

    const added = await stack.gw.post(members(id), {
      token: owner.secret,
      json: { user_id: dev.user.id, access_level: 30, expires_at: "2999-01-31" },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      id: dev.user.id,
      username: dev.user.username,
      access_level: 30,
      expires_at: "2999-01-31",
      created_by: { id: owner.user.id, username: owner.user.username },
    });
    expect((added.body as Json).email).toBeUndefined();
    expectError(
      await stack.gw.post(members(id), {
        token: owner.secret,
        json: { user_id: dev.user.id, access_level: 30 },
      }),
      409,
      { message: "Member already exists" },
    );
    expectError(
      await stack.gw.post(members(id), {
        token: owner.secret,
        json: { user_id: 987654321, access_level: 30 },
      }),
      404,
      { message: "404 User Not Found" },
    );
    expectError(
      await stack.gw.post(members(id), {
        token: owner.secret,
        json: { user_id: maint.user.id, access_level: 60 },
      }),
      400,
      { message: { access_level: ["is not included in the list"] } },
    );
    expectError(
      await stack.gw.post(members(id), {
        token: owner.secret,
        json: { user_id: maint.user.id, access_level: 30, expires_at: "2000-01-01" },
      }),
      400,
      { message: { expires_at: ["cannot be a date in the past"] } },
    );
    expectError(
      await stack.gw.post(members(id), { token: owner.secret, json: { user_id: maint.user.id } }),
      400,
      {
        error: "access_level is missing",
      },
    );
    // A Developer reads the members but may not add any.
    const seen = await stack.gw.get(members(id), { token: dev.secret });
    expect(usernames(seen.body)).toEqual([owner.user.username, dev.user.username]);
    expectError(
      await stack.gw.post(members(id), {
        token: dev.secret,
        json: { user_id: maint.user.id, access_level: 10 },
      }),
      403,
      FORBIDDEN,
    );

    // A Maintainer manages members below Owner, never the Owner level or the namespace's holder.
    expect(
      (
        await stack.gw.post(members(id), {
          token: owner.secret,
          json: { username: maint.user.username, access_level: 40 },
        })
      ).status,
    ).toBe(201);
    expectError(
      await stack.gw.post(members(id), {
        token: maint.secret,
        json: { user_id: extra.user.id, access_level: 50 },
      }),
      403,
      FORBIDDEN,
    );
    expect(
      (
        await stack.gw.post(members(id), {
          token: maint.secret,
          json: { user_id: extra.user.id, access_level: 20 },
        })
      ).status,
    ).toBe(201);
    expectError(
      await stack.gw.put(`${members(id)}/${owner.user.id}`, {
        token: maint.secret,
        json: { access_level: 40 },
      }),
      403,
      FORBIDDEN,
    );
    expectError(
      await stack.gw.put(`${members(id)}/${extra.user.id}`, {
        token: maint.secret,
        json: { access_level: 50 },
      }),
      403,
      FORBIDDEN,
    );
    const changed = await stack.gw.put(`${members(id)}/${extra.user.id}`, {
      token: maint.secret,
      json: { access_level: 30, expires_at: "2998-12-31" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ access_level: 30, expires_at: "2998-12-31" });
    const cleared = await stack.gw.put(`${members(id)}/${extra.user.id}`, {
      token: maint.secret,
      json: { access_level: 30, expires_at: "" },
    });
    expect((cleared.body as Json).expires_at).toBeNull();
    expectError(
      await stack.gw.put(`${members(id)}/${stranger.user.id}`, {
        token: owner.secret,
        json: { access_level: 30 },
      }),
      404,
      NOT_FOUND_MEMBER,
    );

    // Filters: query (name or username) and user_ids; one member by id.
    const byQuery = await stack.gw.get(`${members(id)}?query=${maint.user.username}`, { token: dev.secret });
    expect(usernames(byQuery.body)).toEqual([maint.user.username]);
    const byIds = await stack.gw.get(`${members(id)}?user_ids=${dev.user.id},${extra.user.id}`, {
      token: dev.secret,
    });
    expect(usernames(byIds.body)).toEqual([dev.user.username, extra.user.username]);
    expect((await stack.gw.get(`${members(id)}/${extra.user.id}`, { token: dev.secret })).body).toMatchObject(
      {
        id: extra.user.id,
        access_level: 30,
      },
    );
    expectError(
      await stack.gw.get(`${members(id)}/${stranger.user.id}`, { token: dev.secret }),
      404,
      NOT_FOUND_MEMBER,
    );
    expectError(await stack.gw.get(`${members(id)}/abc`, { token: dev.secret }), 400, {
      error: "user_id is invalid",
    });

    // Removal: a Developer may leave, not remove others; the holder may never be removed.
    expectError(
      await stack.gw.delete(`${members(id)}/${extra.user.id}`, { token: dev.secret }),
      403,
      FORBIDDEN,
    );
    expect((await stack.gw.delete(`${members(id)}/${dev.user.id}`, { token: dev.secret })).status).toBe(204);
    expectError(
      await stack.gw.delete(`${members(id)}/${owner.user.id}`, { token: owner.secret }),
      403,
      FORBIDDEN,
    );
    expectError(
      await stack.gw.delete(`${members(id)}/${dev.user.id}`, { token: owner.secret }),
      404,
      NOT_FOUND_MEMBER,
    );
    expectError(
      await stack.gw.delete(`${members(id)}/${extra.user.id}`, {
        token: owner.secret,
        headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
      }),
      412,
      { message: "412 Precondition Failed" },
    );
    expect((await stack.gw.delete(`${members(id)}/${extra.user.id}`, { token: maint.secret })).status).toBe(
      204,
    );
    // The removed Developer's private project is invisible to them again.
    expectError(await stack.gw.get(`/api/v4/projects/${id}`, { token: dev.secret }), 404, {
      message: "404 Project Not Found",
    });

    const subjects = await recordedSubjects(stack, since);
    for (const s of ["member.added", "member.updated", "member.removed"])
      expect(subjects).toContain(`canopy.projects.${s}`);
  });

  it("adds several users at once and shows e-mails to administrators only", async () => {
    const owner = await knownUser(stack);
    const a = await knownUser(stack);
    const b = await knownUser(stack);
    const project = await newProject(stack, owner.secret);
    const res = await stack.gw.post(members(project.id), {
      token: owner.secret,
      json: { user_id: `${a.user.id},${b.user.id}`, access_level: 20 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: "success" });
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id, ["api"])).token;
    const listed = await stack.gw.get(members(project.id), { token: adminToken });
    expect((listed.body as Json[]).map((m) => [m.username, m.access_level, m.email])).toEqual([
      [owner.user.username, 50, owner.user.email],
      [a.user.username, 20, a.user.email],
      [b.user.username, 20, b.user.email],
    ]);
  });

  it("lists inherited group members in /members/all, refuses a level below the inherited one", async () => {
    const owner = await knownUser(stack);
    const dev = await knownUser(stack);
    const direct = await knownUser(stack);
    const group = await newGroup(stack, owner.secret);
    const sub = await newGroup(stack, owner.secret, { parent_id: group.id });
    await addGroupMember(stack, owner.secret, group.id, dev.user.id, 30);
    const project = await newProject(stack, owner.secret, { namespace_id: sub.id });
    const id = project.id;

    expect((await stack.gw.get(members(id), { token: dev.secret })).body).toEqual([]);
    const all = await stack.gw.get(`${members(id)}/all`, { token: dev.secret });
    expect(all.status).toBe(200);
    expect((all.body as Json[]).map((m) => [m.username, m.access_level])).toEqual(
      expect.arrayContaining([
        [owner.user.username, 50],
        [dev.user.username, 30],
      ]),
    );
    expect(
      (await stack.gw.get(`${members(id)}/all/${dev.user.id}`, { token: dev.secret })).body,
    ).toMatchObject({
      id: dev.user.id,
      access_level: 30,
    });
    expectError(
      await stack.gw.get(`${members(id)}/${dev.user.id}`, { token: dev.secret }),
      404,
      NOT_FOUND_MEMBER,
    );

    expectError(
      await stack.gw.post(members(id), {
        token: owner.secret,
        json: { user_id: dev.user.id, access_level: 10 },
      }),
      400,
      {
        message: {
          access_level: [
            `should be greater than or equal to Developer inherited membership from group ${group.name}`,
          ],
        },
      },
    );
    const higher = await stack.gw.post(members(id), {
      token: owner.secret,
      json: { user_id: dev.user.id, access_level: 40 },
    });
    expect(higher.status).toBe(201);
    expect(
      (
        await stack.gw.post(members(id), {
          token: owner.secret,
          json: { user_id: direct.user.id, access_level: 20 },
        })
      ).status,
    ).toBe(201);
    const again = await stack.gw.get(`${members(id)}/all`, { token: dev.secret });
    const levels = Object.fromEntries((again.body as Json[]).map((m) => [m.username, m.access_level]));
    expect(levels).toEqual({
      [owner.user.username]: 50,
      [dev.user.username]: 40,
      [direct.user.username]: 20,
    });
    // Direct members come first.
    expect((again.body as Json[])[0]!.username).toBe(dev.user.username);
  });
});
