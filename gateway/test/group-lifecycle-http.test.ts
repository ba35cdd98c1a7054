/**
 * DELETE /groups/:id, POST /groups/:id/restore and POST /groups/:id/transfer over HTTP on the
 * default plan (ultimate): GitLab's statuses and bodies exactly (reference §4.5, §4.6, §4.12).
 */
import {
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  signedInUser,
  startStack,
  unique,
  UNAUTHORIZED,
  type Stack,
} from "./support";
import { insertMembership } from "../../services/groups/test/memberships";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const GROUP_NOT_FOUND = { message: "404 Group Not Found" };

async function newGroup(token: string, attributes: Record<string, unknown> = {}) {
  const path = unique("lc_");
  const res = await stack.gw.post("/api/v4/groups", { token, json: { name: path, path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as { id: number; full_path: string; path: string; created_at: string };
}

/** A direct membership written straight into the groups schema (the members API is elsewhere). */
const addMember = (groupId: number, userId: number, accessLevel: number) =>
  insertMembership(stack.db, { groupId, userId, accessLevel });

describe("DELETE /groups/:id", () => {
  it("marks: 202 Accepted, GET shows marked_for_deletion_on, a second DELETE is GitLab's 400", async () => {
    const { secret: token } = await signedInUser(stack);
    const group = await newGroup(token);
    const res = await stack.gw.delete(`/api/v4/groups/${group.id}`, { token });
    expect(res.status).toBe(202);
    expectJsonHeaders(res);
    expect(res.body).toEqual({ message: "202 Accepted" });
    const shown = await stack.gw.get(`/api/v4/groups/${group.id}`, { token });
    expect((shown.body as Record<string, unknown>).marked_for_deletion_on).toBe(
      new Date().toISOString().slice(0, 10),
    );
    expectError(
      await stack.gw.delete(`/api/v4/groups/${encodeURIComponent(group.full_path)}`, { token }),
      400,
      {
        message: "Group has been already marked for deletion",
      },
    );
  });

  it("answers 401, 404, 403 and 412 with GitLab's bodies", async () => {
    const owner = await signedInUser(stack);
    const maintainer = await signedInUser(stack);
    const group = await newGroup(owner.secret, { visibility: "public" });
    const hidden = await newGroup(owner.secret);
    await addMember(group.id, maintainer.user.id, 40);
    expectError(await stack.gw.delete(`/api/v4/groups/${group.id}`), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.delete(`/api/v4/groups/${hidden.id}`, { token: maintainer.secret }),
      404,
      GROUP_NOT_FOUND,
    );
    expectError(
      await stack.gw.delete(`/api/v4/groups/${group.id}`, { token: maintainer.secret }),
      403,
      FORBIDDEN,
    );
    const stale = new Date(Date.parse(group.created_at) - 3_600_000).toUTCString();
    expectError(
      await stack.gw.delete(`/api/v4/groups/${group.id}`, {
        token: owner.secret,
        headers: { "If-Unmodified-Since": stale },
      }),
      412,
      { message: "412 Precondition Failed" },
    );
    const shown = await stack.gw.get(`/api/v4/groups/${group.id}`, { token: owner.secret });
    expect((shown.body as Record<string, unknown>).marked_for_deletion_on).toBeNull();
    // A later date, or one that does not parse, lets the deletion through.
    const later = new Date(Date.parse(group.created_at) + 3_600_000).toUTCString();
    const ok = await stack.gw.delete(`/api/v4/groups/${group.id}`, {
      token: owner.secret,
      headers: { "If-Unmodified-Since": later },
    });
    expect(ok.status).toBe(202);
    const garbled = await stack.gw.delete(`/api/v4/groups/${hidden.id}`, {
      token: owner.secret,
      headers: { "If-Unmodified-Since": "not a date" },
    });
    expect(garbled.status).toBe(202);
  });

  it("permanently_remove + full_path removes a marked subgroup now; its three 400s", async () => {
    const { secret: token } = await signedInUser(stack);
    const top = await newGroup(token);
    const sub = await newGroup(token, { parent_id: top.id });
    const remove = (id: number, form: Record<string, string>) =>
      stack.gw.request("DELETE", `/api/v4/groups/${id}`, { token, form });
    expectError(await remove(top.id, { permanently_remove: "true", full_path: top.full_path }), 400, {
      message: "`permanently_remove` option is only available for subgroups.",
    });
    expectError(await remove(sub.id, { permanently_remove: "true", full_path: sub.full_path }), 400, {
      message: "Group must be marked for deletion first.",
    });
    expect((await stack.gw.delete(`/api/v4/groups/${sub.id}`, { token })).status).toBe(202);
    expectError(await remove(sub.id, { permanently_remove: "true", full_path: "wrong" }), 400, {
      message: "`full_path` is incorrect. You must enter the complete path for the subgroup.",
    });
    const removed = await remove(sub.id, { permanently_remove: "true", full_path: sub.full_path });
    expect(removed.status).toBe(202);
    expect(removed.body).toEqual({ message: "202 Accepted" });
    expectError(await stack.gw.get(`/api/v4/groups/${sub.id}`, { token }), 404, GROUP_NOT_FOUND);
  });

  it("refuses bad parameters with GitLab's 400 and changes nothing", async () => {
    const { secret: token } = await signedInUser(stack);
    const group = await newGroup(token);
    const res = await stack.gw.delete(`/api/v4/groups/${group.id}?permanently_remove=maybe`, { token });
    expectError(res, 400, { error: "permanently_remove is invalid" });
    const shown = await stack.gw.get(`/api/v4/groups/${group.id}`, { token });
    expect((shown.body as Record<string, unknown>).marked_for_deletion_on).toBeNull();
  });
});

describe("POST /groups/:id/restore", () => {
  it("201 with the GroupDetail, marked_for_deletion_on back to null; 400 when not marked", async () => {
    const { secret: token } = await signedInUser(stack);
    const group = await newGroup(token);
    await stack.gw.delete(`/api/v4/groups/${group.id}`, { token });
    const res = await stack.gw.post(`/api/v4/groups/${group.id}/restore`, { token });
    expect(res.status).toBe(201);
    expectJsonHeaders(res);
    expect(res.body).toMatchObject({
      id: group.id,
      full_path: group.full_path,
      marked_for_deletion_on: null,
    });
    expect(res.body).toHaveProperty("shared_with_groups", []);
    expectError(await stack.gw.post(`/api/v4/groups/${group.id}/restore`, { token }), 400, {
      message: "Group has not been marked for deletion",
    });
  });

  it("401 anonymous, 404 unseen, 403 below Owner", async () => {
    const owner = await signedInUser(stack);
    const other = await signedInUser(stack);
    const group = await newGroup(owner.secret, { visibility: "internal" });
    await stack.gw.delete(`/api/v4/groups/${group.id}`, { token: owner.secret });
    expectError(await stack.gw.post(`/api/v4/groups/${group.id}/restore`), 401, UNAUTHORIZED);
    expectError(
      await stack.gw.post(`/api/v4/groups/${group.id}/restore`, { token: other.secret }),
      403,
      FORBIDDEN,
    );
    expectError(
      await stack.gw.post("/api/v4/groups/999999999/restore", { token: owner.secret }),
      404,
      GROUP_NOT_FOUND,
    );
  });
});

describe("POST /groups/:id/transfer", () => {
  it("moves under group_id (201 GroupDetail) and back to the top without it", async () => {
    const { secret: token } = await signedInUser(stack);
    const from = await newGroup(token);
    const to = await newGroup(token);
    const sub = await newGroup(token, { parent_id: from.id });
    const moved = await stack.gw.post(`/api/v4/groups/${sub.id}/transfer`, {
      token,
      json: { group_id: to.id },
    });
    expect(moved.status).toBe(201);
    expectJsonHeaders(moved);
    expect(moved.body).toMatchObject({
      id: sub.id,
      parent_id: to.id,
      full_path: `${to.full_path}/${sub.path}`,
    });
    const top = await stack.gw.post(`/api/v4/groups/${sub.id}/transfer`, { token });
    expect(top.status).toBe(201);
    expect(top.body).toMatchObject({ id: sub.id, parent_id: null, full_path: sub.path });
  });

  it("answers Transfer failed 400s, 404 for group_id 0 or unseen, 403, 401, and bad group_id", async () => {
    const owner = await signedInUser(stack);
    const other = await signedInUser(stack);
    const top = await newGroup(owner.secret, { visibility: "public" });
    const sub = await newGroup(owner.secret, { parent_id: top.id, visibility: "public" });
    const hidden = await newGroup(other.secret);
    const transfer = (id: number, json: Record<string, unknown> = {}, token = owner.secret) =>
      stack.gw.post(`/api/v4/groups/${id}/transfer`, { token, json });
    expectError(await transfer(top.id), 400, { message: "Transfer failed: Group is already a root group." });
    expectError(await transfer(sub.id, { group_id: top.id }), 400, {
      message: "Transfer failed: Group is already associated to the parent group.",
    });
    expectError(await transfer(top.id, { group_id: sub.id }), 400, {
      message: "Transfer failed: Cannot transfer group to one of its subgroup.",
    });
    expectError(await transfer(sub.id, { group_id: 0 }), 404, GROUP_NOT_FOUND);
    expectError(await transfer(sub.id, { group_id: hidden.id }), 404, GROUP_NOT_FOUND);
    expectError(await transfer(sub.id, {}, other.secret), 403, FORBIDDEN);
    expectError(await stack.gw.post(`/api/v4/groups/${sub.id}/transfer`), 401, UNAUTHORIZED);
    expectError(await transfer(sub.id, { group_id: "abc" }), 400, { error: "group_id is invalid" });
    const still = await stack.gw.get(`/api/v4/groups/${sub.id}`, { token: owner.secret });
    expect((still.body as Record<string, unknown>).parent_id).toBe(top.id);
  });
});
