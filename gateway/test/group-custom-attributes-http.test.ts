import { knownUser, newGroup, type ApiGroup } from "./group-sharing-support";
import {
  createAdmin,
  createToken,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  startStack,
  UNAUTHORIZED,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
let adminToken: string;
beforeAll(async () => {
  stack = await startStack();
  const admin = await createAdmin(stack);
  adminToken = (await createToken(stack, admin.id)).token;
});
afterAll(() => stack.stop());

const stored = async (groupId: number) =>
  (
    await stack.db.query(
      "SELECT key, value FROM groups.custom_attributes WHERE namespace_id = $1 ORDER BY key",
      [groupId],
    )
  ).rows;

async function ownedGroup(
  attributes: Record<string, unknown> = {},
): Promise<{ owner: SignedIn; group: ApiGroup }> {
  const owner = await knownUser(stack);
  return { owner, group: await newGroup(stack, owner.secret, attributes) };
}

describe("custom attributes as an administrator", () => {
  it("PUT creates and updates (200 both), GET lists and reads, DELETE answers 204", async () => {
    const { group } = await ownedGroup();
    const base = `/api/v4/groups/${group.id}/custom_attributes`;
    const created = await stack.gw.put(`${base}/color`, { token: adminToken, json: { value: "green" } });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 200,
      body: { key: "color", value: "green" },
    });
    expectJsonHeaders(created);
    const updated = await stack.gw.put(`${base}/color`, { token: adminToken, form: { value: "blue" } });
    expect({ status: updated.status, body: updated.body }).toEqual({
      status: 200,
      body: { key: "color", value: "blue" },
    });
    await stack.gw.put(`${base}/size`, { token: adminToken, json: { value: 42 } });
    const listed = await stack.gw.get(base, { token: adminToken });
    expect({ status: listed.status, body: listed.body }).toEqual({
      status: 200,
      body: [
        { key: "color", value: "blue" },
        { key: "size", value: "42" },
      ],
    });
    const byPath = await stack.gw.get(
      `/api/v4/groups/${encodeURIComponent(group.full_path)}/custom_attributes/color`,
      { token: adminToken },
    );
    expect(byPath.body).toEqual({ key: "color", value: "blue" });
    const removed = await stack.gw.delete(`${base}/size`, { token: adminToken });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect(await stored(group.id)).toEqual([{ key: "color", value: "blue" }]);
  });

  it("answers 404 Not found for a missing key, 404 Group Not Found for a missing group", async () => {
    const { group } = await ownedGroup();
    const base = `/api/v4/groups/${group.id}/custom_attributes`;
    expectError(await stack.gw.get(`${base}/nope`, { token: adminToken }), 404, { message: "404 Not found" });
    expectError(await stack.gw.delete(`${base}/nope`, { token: adminToken }), 404, {
      message: "404 Not found",
    });
    for (const id of ["999999999", "no%2Fsuch"]) {
      expectError(await stack.gw.get(`/api/v4/groups/${id}/custom_attributes`, { token: adminToken }), 404, {
        message: "404 Group Not Found",
      });
      expectError(
        await stack.gw.put(`/api/v4/groups/${id}/custom_attributes/k`, {
          token: adminToken,
          json: { value: "v" },
        }),
        404,
        { message: "404 Group Not Found" },
      );
    }
  });

  it("refuses a missing, blank, oversized or NUL-carrying value with 400, and stores nothing", async () => {
    const { group } = await ownedGroup();
    const url = `/api/v4/groups/${group.id}/custom_attributes/k`;
    const put = (json: unknown) => stack.gw.put(url, { token: adminToken, json });
    expectError(await put({}), 400, { error: "value is missing" });
    expectError(await put({ value: null }), 400, { error: "value is missing" });
    expectError(await put({ value: "" }), 400, { message: { value: ["can't be blank"] } });
    expectError(await put({ value: "x".repeat(10_001) }), 400, {
      message: { value: ["is too long (maximum is 10000 characters)"] },
    });
    expectError(await put({ value: "x".repeat(70_000) }), 400, {
      error: "value must be at the most 65536 characters long",
    });
    expect((await put({ value: "a\u0000b" })).status).toBe(400);
    expect((await put({ value: { nested: true } })).status).toBe(400);
    expectError(
      await stack.gw.put(`/api/v4/groups/${group.id}/custom_attributes/${"k".repeat(256)}`, {
        token: adminToken,
        json: { value: "v" },
      }),
      400,
      { message: { key: ["is too long (maximum is 255 characters)"] } },
    );
    expect(await stored(group.id)).toEqual([]);
  });
});

describe("custom attributes for everyone else", () => {
  it("is 403 for owners and strangers on every route, and for anonymous GETs; anonymous writes are 401", async () => {
    const { owner, group } = await ownedGroup({ visibility: "public" });
    await stack.gw.put(`/api/v4/groups/${group.id}/custom_attributes/secret`, {
      token: adminToken,
      json: { value: "s" },
    });
    const stranger = await knownUser(stack);
    const base = `/api/v4/groups/${group.id}/custom_attributes`;
    for (const token of [owner.secret, stranger.secret, undefined]) {
      expectError(await stack.gw.get(base, { token }), 403, FORBIDDEN);
      expectError(await stack.gw.get(`${base}/secret`, { token }), 403, FORBIDDEN);
      // Existence of another group is not revealed either.
      expectError(
        await stack.gw.get(`/api/v4/groups/999999999/custom_attributes`, { token }),
        403,
        FORBIDDEN,
      );
    }
    for (const token of [owner.secret, stranger.secret]) {
      expectError(await stack.gw.put(`${base}/secret`, { token, json: { value: "x" } }), 403, FORBIDDEN);
      expectError(await stack.gw.delete(`${base}/secret`, { token }), 403, FORBIDDEN);
    }
    expectError(await stack.gw.put(`${base}/secret`, { json: { value: "x" } }), 401, UNAUTHORIZED);
    expectError(await stack.gw.delete(`${base}/secret`), 401, UNAUTHORIZED);
    expect(await stored(group.id)).toEqual([{ key: "secret", value: "s" }]);
  });
});

describe("GET /groups/:id?with_custom_attributes=true", () => {
  it("shows custom_attributes to administrators only (an empty array too), and ignores the flag for others", async () => {
    const { owner, group } = await ownedGroup();
    const url = `/api/v4/groups/${group.id}?with_custom_attributes=true`;
    const bare = await stack.gw.get(url, { token: adminToken });
    expect((bare.body as Record<string, unknown>).custom_attributes).toEqual([]);
    await stack.gw.put(`/api/v4/groups/${group.id}/custom_attributes/tier`, {
      token: adminToken,
      json: { value: "gold" },
    });
    const shown = await stack.gw.get(url, { token: adminToken });
    expect((shown.body as Record<string, unknown>).custom_attributes).toEqual([
      { key: "tier", value: "gold" },
    ]);
    const plain = await stack.gw.get(`/api/v4/groups/${group.id}`, { token: adminToken });
    expect(plain.body).not.toHaveProperty("custom_attributes");
    const asOwner = await stack.gw.get(url, { token: owner.secret });
    expect(asOwner.status).toBe(200);
    expect(asOwner.body).not.toHaveProperty("custom_attributes");
  });
});
