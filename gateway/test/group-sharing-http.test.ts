import { addMember, knownUser, newGroup, storedLinks } from "./group-sharing-support";
import {
  createAdmin,
  createToken,
  expectError,
  expectJsonHeaders,
  startStack,
  UNAUTHORIZED,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const GROUP_NOT_FOUND = { message: "404 Group Not Found" };

describe("POST /groups/:id/share", () => {
  it("answers 201 with the shared group's detail listing the link (JSON null expires_at, as python-gitlab sends)", async () => {
    const owner = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret, { name: "Shared" });
    const invited = await newGroup(stack, owner.secret, { name: "Invited" });
    const res = await stack.gw.post(`/api/v4/groups/${shared.id}/share`, {
      token: owner.secret,
      json: { group_id: invited.id, group_access: 30, expires_at: null },
    });
    expect(res.status).toBe(201);
    expectJsonHeaders(res);
    expect(res.body).toMatchObject({
      id: shared.id,
      name: "Shared",
      full_path: shared.full_path,
      projects: [],
      shared_projects: [],
      shared_with_groups: [
        {
          group_id: invited.id,
          group_name: "Invited",
          group_full_path: invited.full_path,
          group_access_level: 30,
          expires_at: null,
        },
      ],
    });
    expect(res.body).not.toHaveProperty("runners_token");
  });

  it("takes form parameters, a URL-encoded path and an expiry date", async () => {
    const owner = await knownUser(stack);
    const top = await newGroup(stack, owner.secret);
    const sub = await newGroup(stack, owner.secret, { parent_id: top.id });
    const invited = await newGroup(stack, owner.secret);
    const res = await stack.gw.post(`/api/v4/groups/${encodeURIComponent(sub.full_path as string)}/share`, {
      token: owner.secret,
      form: { group_id: String(invited.id), group_access: "50", expires_at: "2099-12-31" },
    });
    expect(res.status).toBe(201);
    expect((res.body as { shared_with_groups: unknown[] }).shared_with_groups).toEqual([
      expect.objectContaining({ group_id: invited.id, group_access_level: 50, expires_at: "2099-12-31" }),
    ]);
  });

  it("validates parameters as Grape does (after 401), and changes nothing", async () => {
    const owner = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret);
    const url = `/api/v4/groups/${shared.id}/share`;
    expectError(await stack.gw.post(url, { json: {} }), 401, UNAUTHORIZED);
    const post = (json: unknown) => stack.gw.post(url, { token: owner.secret, json });
    expectError(await post({}), 400, { error: "group_id is missing, group_access is missing" });
    expectError(await post({ group_id: shared.id, group_access: 25 }), 400, {
      error: "group_access does not have a valid value",
    });
    expectError(await post({ group_id: shared.id, group_access: "lots" }), 400, {
      error: "group_access is invalid",
    });
    expectError(await post({ group_id: "x", group_access: 30 }), 400, { error: "group_id is invalid" });
    expectError(await post({ group_id: [1, 2], group_access: 30 }), 400, { error: "group_id is invalid" });
    expectError(await post({ group_id: shared.id, group_access: 30, expires_at: "2024-02-30" }), 400, {
      error: "expires_at is invalid",
    });
    expectError(await post({ group_id: "9007199254740993", group_access: 30 }), 400, {
      error: "group_id is invalid",
    });
    expect(await storedLinks(stack, shared.id)).toEqual([]);
  });

  it("answers 404 Group Not Found for invisible groups, the bare 404 Not Found to a non-Owner, 409 for a repeat", async () => {
    const owner = await knownUser(stack);
    const other = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret, { visibility: "internal" });
    const invited = await newGroup(stack, owner.secret, { visibility: "internal" });
    const hidden = await newGroup(stack, other.secret);
    const share = (token: string, id: number, groupId: number) =>
      stack.gw.post(`/api/v4/groups/${id}/share`, { token, json: { group_id: groupId, group_access: 30 } });
    expectError(await share(owner.secret, shared.id, hidden.id), 404, GROUP_NOT_FOUND);
    expectError(await share(owner.secret, hidden.id, shared.id), 404, GROUP_NOT_FOUND);
    expectError(await share(owner.secret, shared.id, 0), 404, GROUP_NOT_FOUND);
    const maintainer = await knownUser(stack);
    await addMember(stack, shared.id, maintainer.user.id, 40);
    expectError(await share(maintainer.secret, shared.id, invited.id), 404, { message: "Not Found" });
    expectError(await share(other.secret, shared.id, invited.id), 404, { message: "Not Found" });
    expect((await share(owner.secret, shared.id, invited.id)).status).toBe(201);
    expectError(await share(owner.secret, shared.id, invited.id), 409, {
      message: "Shared group The group has already been shared with this group",
    });
    expect(await storedLinks(stack, shared.id)).toEqual([
      { shared_with_group_id: invited.id, group_access: 30, expires_at: null },
    ]);
  });

  it("answers the bare 404 when the root keeps sharing inside its hierarchy", async () => {
    const owner = await knownUser(stack);
    const root = await newGroup(stack, owner.secret);
    const sub = await newGroup(stack, owner.secret, { parent_id: root.id });
    const outside = await newGroup(stack, owner.secret);
    await stack.db.query(
      "UPDATE groups.namespaces SET prevent_sharing_groups_outside_hierarchy = true WHERE id = $1",
      [root.id],
    );
    expectError(
      await stack.gw.post(`/api/v4/groups/${sub.id}/share`, {
        token: owner.secret,
        json: { group_id: outside.id, group_access: 30 },
      }),
      404,
      { message: "Not Found" },
    );
    expect(
      (
        await stack.gw.post(`/api/v4/groups/${sub.id}/share`, {
          token: owner.secret,
          json: { group_id: root.id, group_access: 30 },
        })
      ).status,
    ).toBe(201);
  });
});

describe("access through a share, over HTTP", () => {
  it("lets members of the invited group read the private group and its subgroups until the share is removed", async () => {
    const owner = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret);
    const sub = await newGroup(stack, owner.secret, { parent_id: shared.id });
    const invited = await newGroup(stack, owner.secret);
    const member = await knownUser(stack);
    await addMember(stack, invited.id, member.user.id, 20);
    for (const g of [shared, sub])
      expectError(
        await stack.gw.get(`/api/v4/groups/${g.id}`, { token: member.secret }),
        404,
        GROUP_NOT_FOUND,
      );
    await stack.gw.post(`/api/v4/groups/${shared.id}/share`, {
      token: owner.secret,
      json: { group_id: invited.id, group_access: 40 },
    });
    for (const g of [shared, sub])
      expect((await stack.gw.get(`/api/v4/groups/${g.id}`, { token: member.secret })).status).toBe(200);
    // Reporter through the share (LEAST(40, 20)): not an Owner, so not a sharer.
    const third = await newGroup(stack, member.secret);
    expectError(
      await stack.gw.post(`/api/v4/groups/${sub.id}/share`, {
        token: member.secret,
        json: { group_id: third.id, group_access: 10 },
      }),
      404,
      { message: "Not Found" },
    );
    const removed = await stack.gw.delete(`/api/v4/groups/${shared.id}/share/${invited.id}`, {
      token: owner.secret,
    });
    expect(removed.status).toBe(204);
    for (const g of [shared, sub])
      expectError(
        await stack.gw.get(`/api/v4/groups/${g.id}`, { token: member.secret }),
        404,
        GROUP_NOT_FOUND,
      );
  });

  it("lists in shared_with_groups only the invited groups the caller can see", async () => {
    const owner = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret, { visibility: "public" });
    const hidden = await newGroup(stack, owner.secret);
    const open = await newGroup(stack, owner.secret, { visibility: "public" });
    for (const g of [hidden, open])
      await stack.gw.post(`/api/v4/groups/${shared.id}/share`, {
        token: owner.secret,
        json: { group_id: g.id, group_access: 30 },
      });
    const listed = async (token?: string) =>
      (
        (await stack.gw.get(`/api/v4/groups/${shared.id}`, { token })).body as {
          shared_with_groups: { group_id: number }[];
        }
      ).shared_with_groups.map((l) => l.group_id);
    const stranger = await knownUser(stack);
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id)).token;
    expect(await listed()).toEqual([open.id]);
    expect(await listed(stranger.secret)).toEqual([open.id]);
    expect(await listed(owner.secret)).toEqual([hidden.id, open.id]);
    expect(await listed(adminToken)).toEqual([hidden.id, open.id]);
  });
});

describe("DELETE /groups/:id/share/:group_id", () => {
  async function linked() {
    const owner = await knownUser(stack);
    const shared = await newGroup(stack, owner.secret, { visibility: "internal" });
    const invited = await newGroup(stack, owner.secret);
    await stack.gw.post(`/api/v4/groups/${shared.id}/share`, {
      token: owner.secret,
      json: { group_id: invited.id, group_access: 30 },
    });
    return { owner, shared, invited };
  }

  it("answers 204 with no body and removes the link", async () => {
    const { owner, shared, invited } = await linked();
    const res = await stack.gw.delete(`/api/v4/groups/${shared.id}/share/${invited.id}`, {
      token: owner.secret,
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await storedLinks(stack, shared.id)).toEqual([]);
    expectError(
      await stack.gw.delete(`/api/v4/groups/${shared.id}/share/${invited.id}`, { token: owner.secret }),
      404,
      { message: "404 Group Link Not Found" },
    );
  });

  it("answers a visible non-Owner 204 and removes nothing", async () => {
    const { shared, invited } = await linked();
    const maintainer = await knownUser(stack);
    await addMember(stack, shared.id, maintainer.user.id, 40);
    const stranger = await knownUser(stack);
    for (const token of [maintainer.secret, stranger.secret])
      expect(
        (await stack.gw.delete(`/api/v4/groups/${shared.id}/share/${invited.id}`, { token })).status,
      ).toBe(204);
    expect(await storedLinks(stack, shared.id)).toHaveLength(1);
  });

  it("answers 401, 400 for a group_id that is not an integer, 404 Group and 404 Group Link", async () => {
    const { owner, shared, invited } = await linked();
    const url = `/api/v4/groups/${shared.id}/share/${invited.id}`;
    expectError(await stack.gw.delete(url), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.delete(`/api/v4/groups/${shared.id}/share/foo`, { token: owner.secret }),
      400,
      {
        error: "group_id is invalid",
      },
    );
    const external = await knownUser(stack, { external: true });
    expectError(await stack.gw.delete(url, { token: external.secret }), 404, GROUP_NOT_FOUND);
    expectError(
      await stack.gw.delete(`/api/v4/groups/${shared.id}/share/${shared.id}`, { token: owner.secret }),
      404,
      {
        message: "404 Group Link Not Found",
      },
    );
    expect(await storedLinks(stack, shared.id)).toHaveLength(1);
  });
});
