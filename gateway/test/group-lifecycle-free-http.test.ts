/**
 * DELETE and restore over HTTP on the free plan: 202 and 404 at once; restore is not there (404).
 */
import { expectError, FORBIDDEN, signedInUser, startStack, unique, waitFor, type Stack } from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { CANOPY_PLAN: "free" } });
});
afterAll(() => stack.stop());

async function newGroup(token: string, attributes: Record<string, unknown> = {}) {
  const path = unique("lcf_");
  const res = await stack.gw.post("/api/v4/groups", { token, json: { name: path, path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as { id: number; full_path: string };
}

describe("the free plan", () => {
  it("DELETE answers 202 and the group and its subgroups are 404 at once, then removed", async () => {
    const { secret: token } = await signedInUser(stack);
    const top = await newGroup(token);
    const sub = await newGroup(token, { parent_id: top.id });
    const res = await stack.gw.delete(`/api/v4/groups/${top.id}`, { token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: "202 Accepted" });
    for (const id of [top.id, sub.id])
      expectError(await stack.gw.get(`/api/v4/groups/${id}`, { token }), 404, {
        message: "404 Group Not Found",
      });
    await waitFor("the removal", async () => {
      const { rowCount } = await stack.db.query(
        "SELECT 1 FROM groups.namespaces WHERE id = ANY($1::bigint[])",
        [[top.id, sub.id]],
      );
      return rowCount === 0;
    });
  });

  it("POST /groups/:id/restore is 404 '404 Not Found' for Owners, 403 below", async () => {
    const owner = await signedInUser(stack);
    const other = await signedInUser(stack);
    const group = await newGroup(owner.secret, { visibility: "public" });
    expectError(await stack.gw.post(`/api/v4/groups/${group.id}/restore`, { token: owner.secret }), 404, {
      message: "404 Not Found",
    });
    expectError(
      await stack.gw.post(`/api/v4/groups/${group.id}/restore`, { token: other.secret }),
      403,
      FORBIDDEN,
    );
  });
});
