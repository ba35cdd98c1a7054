import {
  createAdmin,
  createToken,
  expectError,
  FORBIDDEN,
  startStack,
  UNAUTHORIZED,
  unique,
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

const share = (id: number) => `/api/v4/projects/${id}/share`;

describe("sharing a project with a group over HTTP", () => {
  it("shares, shows shared_with_groups, gives capped access and /members/all entries, unshares", async () => {
    const since = new Date(Date.now() - 1000);
    const owner = await knownUser(stack);
    const invitedOwner = await knownUser(stack);
    const guest = await knownUser(stack);
    const dev = await knownUser(stack);
    const home = await newGroup(stack, owner.secret);
    const project = await newProject(stack, owner.secret, { namespace_id: home.id });
    const invited = await newGroup(stack, invitedOwner.secret, { visibility: "private" });
    const invitedSub = await newGroup(stack, invitedOwner.secret, {
      parent_id: invited.id,
      visibility: "private",
    });
    // A Maintainer of the invited group's parent reaches the project through the share of the subgroup.
    await addGroupMember(stack, invitedOwner.secret, invited.id, guest.user.id, 40);
    await addGroupMember(stack, owner.secret, home.id, dev.user.id, 30);
    // The project's owner cannot see the private invited group yet: "Not Found".
    expectError(
      await stack.gw.post(share(project.id), {
        token: owner.secret,
        json: { group_id: invitedSub.id, group_access: 20 },
      }),
      404,
      { message: "Not Found" },
    );
    await addGroupMember(stack, invitedOwner.secret, invitedSub.id, owner.user.id, 10);

    expectError(
      await stack.gw.post(share(project.id), { json: { group_id: invitedSub.id, group_access: 20 } }),
      401,
      UNAUTHORIZED,
    );
    expectError(
      await stack.gw.post(share(project.id), {
        token: dev.secret,
        json: { group_id: invitedSub.id, group_access: 20 },
      }),
      403,
      FORBIDDEN,
    );
    expectError(
      await stack.gw.post(share(project.id), {
        token: owner.secret,
        json: { group_id: invitedSub.id, group_access: 50 },
      }),
      400,
      { error: "group_access does not have a valid value" },
    );
    expectError(
      await stack.gw.post(share(project.id), { token: owner.secret, json: { group_access: 20 } }),
      400,
      {
        error: "group_id is missing",
      },
    );
    expectError(
      await stack.gw.post(share(project.id), {
        token: owner.secret,
        json: { group_id: home.id, group_access: 20 },
      }),
      409,
      { message: "Project cannot be shared with the group it is in or one of its ancestors." },
    );
    expectError(
      await stack.gw.post(share(project.id), {
        token: guest.secret,
        json: { group_id: invitedSub.id, group_access: 20 },
      }),
      404,
      { message: "404 Project Not Found" },
    );

    const shared = await stack.gw.post(share(project.id), {
      token: owner.secret,
      json: { group_id: invitedSub.id, group_access: 20, expires_at: "2999-06-30" },
    });
    expect(shared.status).toBe(201);
    expect(shared.body).toEqual({
      id: expect.any(Number),
      project_id: project.id,
      group_id: invitedSub.id,
      group_access: 20,
      expires_at: "2999-06-30",
    });
    expectError(
      await stack.gw.post(share(project.id), {
        token: owner.secret,
        json: { group_id: invitedSub.id, group_access: 30 },
      }),
      409,
      { message: "Group already shared with this group" },
    );

    // The guest (Maintainer of the invited parent) now reads the project as a Reporter.
    const seen = await stack.gw.get(`/api/v4/projects/${project.id}`, { token: guest.secret });
    expect(seen.status).toBe(200);
    expect((seen.body as Json).shared_with_groups).toEqual([
      {
        group_id: invitedSub.id,
        group_name: invitedSub.name,
        group_full_path: invitedSub.full_path,
        group_access_level: 20,
        expires_at: "2999-06-30",
      },
    ]);
    const all = await stack.gw.get(`/api/v4/projects/${project.id}/members/all`, { token: owner.secret });
    const levels = Object.fromEntries((all.body as Json[]).map((m) => [m.username, m.access_level]));
    expect(levels[guest.user.username]).toBe(20);
    expect(levels[dev.user.username]).toBe(30);
    // The Developer of the home group cannot read the private invited group: its members are left out for them,
    // and so is the share.
    const devView = await stack.gw.get(`/api/v4/projects/${project.id}/members/all`, { token: dev.secret });
    expect((devView.body as Json[]).map((m) => m.username)).not.toContain(guest.user.username);
    const devProject = await stack.gw.get(`/api/v4/projects/${project.id}`, { token: dev.secret });
    expect((devProject.body as Json).shared_with_groups).toEqual([]);

    expectError(
      await stack.gw.delete(`${share(project.id)}/${invitedSub.id}`, { token: dev.secret }),
      403,
      FORBIDDEN,
    );
    expectError(await stack.gw.delete(`${share(project.id)}/${home.id}`, { token: owner.secret }), 404, {
      message: "404 Group Link Not Found",
    });
    expectError(await stack.gw.delete(`${share(project.id)}/abc`, { token: owner.secret }), 400, {
      error: "group_id is invalid",
    });
    expect(
      (await stack.gw.delete(`${share(project.id)}/${invitedSub.id}`, { token: owner.secret })).status,
    ).toBe(204);
    expectError(await stack.gw.get(`/api/v4/projects/${project.id}`, { token: guest.secret }), 404, {
      message: "404 Project Not Found",
    });
    const subjects = await recordedSubjects(stack, since);
    expect(subjects).toEqual(
      expect.arrayContaining(["canopy.projects.share.created", "canopy.projects.share.removed"]),
    );
  });

  it("refuses to share a project whose group hierarchy has share_with_group_lock on", async () => {
    const owner = await knownUser(stack);
    const root = await newGroup(stack, owner.secret);
    const sub = await newGroup(stack, owner.secret, { parent_id: root.id });
    const other = await newGroup(stack, owner.secret);
    const project = await newProject(stack, owner.secret, { namespace_id: sub.id });
    const locked = await stack.gw.put(`/api/v4/groups/${root.id}`, {
      token: owner.secret,
      json: { share_with_group_lock: true },
    });
    expect(locked.status).toBe(200);
    // No wait: the owner's share below reads after their lock reached the projects service's copy.
    expectError(
      await stack.gw.post(share(project.id), {
        token: owner.secret,
        json: { group_id: other.id, group_access: 30 },
      }),
      400,
      { message: "The project sharing with group is disabled" },
    );
  });
});

describe("project custom attributes over HTTP", () => {
  // Unique to this run's file: other files' projects in the same database carry attributes too.
  const GOLD = unique("gold_");
  it("lets administrators set, read, filter by and delete them; everyone else is refused", async () => {
    const owner = await knownUser(stack);
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id, ["api"])).token;
    const project = await newProject(stack, owner.secret, { visibility: "public" });
    const other = await newProject(stack, owner.secret, { visibility: "public" });
    const attrs = `/api/v4/projects/${project.id}/custom_attributes`;

    expectError(await stack.gw.get(attrs), 403, FORBIDDEN);
    expectError(await stack.gw.get(attrs, { token: owner.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.put(`${attrs}/tier`, { form: { value: GOLD } }), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.put(`${attrs}/tier`, { token: owner.secret, form: { value: GOLD } }),
      403,
      FORBIDDEN,
    );
    expectError(await stack.gw.put(`${attrs}/tier`, { token: adminToken, form: {} }), 400, {
      error: "value is missing",
    });
    expectError(
      await stack.gw.get("/api/v4/projects/987654321/custom_attributes", { token: adminToken }),
      404,
      {
        message: "404 Project Not Found",
      },
    );

    const set = await stack.gw.put(`${attrs}/tier`, { token: adminToken, form: { value: GOLD } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ key: "tier", value: GOLD });
    await stack.gw.put(`${attrs}/team`, { token: adminToken, form: { value: "core" } });
    expect((await stack.gw.get(attrs, { token: adminToken })).body).toEqual([
      { key: "tier", value: GOLD },
      { key: "team", value: "core" },
    ]);
    expect((await stack.gw.get(`${attrs}/team`, { token: adminToken })).body).toEqual({
      key: "team",
      value: "core",
    });
    expectError(await stack.gw.get(`${attrs}/none`, { token: adminToken }), 404, {
      message: "404 Not found",
    });

    const detail = await stack.gw.get(`/api/v4/projects/${project.id}?with_custom_attributes=true`, {
      token: adminToken,
    });
    expect((detail.body as Json).custom_attributes).toEqual([
      { key: "tier", value: GOLD },
      { key: "team", value: "core" },
    ]);
    const ownerDetail = await stack.gw.get(`/api/v4/projects/${project.id}?with_custom_attributes=true`, {
      token: owner.secret,
    });
    expect((ownerDetail.body as Json).custom_attributes).toBeUndefined();

    const filtered = await stack.gw.get(
      `/api/v4/projects?custom_attributes[tier]=${GOLD}&with_custom_attributes=true`,
      {
        token: adminToken,
      },
    );
    expect((filtered.body as Json[]).map((p) => p.id)).toEqual([project.id]);
    expect((filtered.body as Json[])[0]!.custom_attributes).toEqual([
      { key: "tier", value: GOLD },
      { key: "team", value: "core" },
    ]);
    // Ignored for anyone but administrators: the owner's list still holds both projects.
    const ignored = await stack.gw.get(`/api/v4/projects?custom_attributes[tier]=${GOLD}&owned=true`, {
      token: owner.secret,
    });
    expect((ignored.body as Json[]).map((p) => p.id).sort()).toEqual([project.id, other.id].sort());

    expect((await stack.gw.delete(`${attrs}/tier`, { token: adminToken })).status).toBe(204);
    expectError(await stack.gw.delete(`${attrs}/tier`, { token: adminToken }), 404, {
      message: "404 Not found",
    });
    expect((await stack.gw.get(attrs, { token: adminToken })).body).toEqual([{ key: "team", value: "core" }]);
  });
});
