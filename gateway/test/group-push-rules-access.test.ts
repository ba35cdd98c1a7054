/** Push rules over HTTP: who may call each route (the rule's life and parameters: group-push-rules.test.ts). */
import {
  expectError,
  insufficientScope,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type Stack,
} from "./support";
import { bodyFor, memberOf, newGroup, NOT_FOUND, pushRuleRow, url } from "./group-push-rules-support";

let stack: Stack;
let owner: string;
beforeAll(async () => {
  stack = await startStack();
  owner = (await signedInUser(stack)).secret;
});
afterAll(() => stack.stop());

describe("who may call", () => {
  it("needs a signed-in caller on every route", async () => {
    const group = await newGroup(stack.gw, owner, { visibility: "public" });
    for (const method of ["GET", "POST", "PUT", "DELETE"] as const)
      expectError(
        await stack.gw.request(method, url(group.id), bodyFor(method, { member_check: true })),
        401,
        UNAUTHORIZED,
      );
  });

  it("hides an invisible group first: 404 Group Not Found, whatever the parameters", async () => {
    const group = await newGroup(stack.gw, owner);
    const stranger = (await signedInUser(stack)).secret;
    for (const method of ["GET", "POST", "PUT", "DELETE"] as const)
      expectError(
        await stack.gw.request(method, url(group.id), {
          token: stranger,
          ...bodyFor(method, { max_file_size: "x" }),
        }),
        404,
        { message: "404 Group Not Found" },
      );
  });

  it.each([
    ["a non-member of a public group", 0],
    ["a Guest", 10],
    ["a Reporter", 20],
    ["a Developer", 30],
  ])("answers 404 Not Found (not 403) to %s, before looking at parameters", async (_who, level) => {
    const group = await newGroup(stack.gw, owner, { visibility: "public" });
    await stack.gw.post(url(group.id), { token: owner, json: { member_check: true } });
    const { secret } = await memberOf(stack, group.id, level);
    for (const [method, json] of [
      ["GET", undefined],
      ["POST", { member_check: false }],
      ["PUT", {}],
      ["PUT", { max_file_size: "x", reject_unsigned_commits: false }],
      ["DELETE", undefined],
    ] as const)
      expectError(await stack.gw.request(method, url(group.id), { token: secret, json }), 404, NOT_FOUND);
    expect((await pushRuleRow(stack, group.id))!.member_check).toBe(true);
  });

  it("lets a Maintainer manage the rule, and an inherited one in a subgroup", async () => {
    const group = await newGroup(stack.gw, owner);
    const sub = await newGroup(stack.gw, owner, { parentId: group.id });
    const { secret } = await memberOf(stack, group.id, 40);
    for (const id of [group.id, sub.id]) {
      await stack.gw.delete(url(id), { token: owner });
      expect((await stack.gw.post(url(id), { token: secret, json: { prevent_secrets: true } })).status).toBe(
        201,
      );
      expect(
        (await stack.gw.put(url(id), { token: secret, json: { commit_committer_check: true } })).status,
      ).toBe(200);
      expect((await stack.gw.get(url(id), { token: secret })).body).toMatchObject({
        prevent_secrets: true,
        commit_committer_check: true,
      });
      expect((await stack.gw.delete(url(id), { token: secret })).status).toBe(204);
    }
  });

  it("lets an administrator who is no member manage it", async () => {
    const group = await newGroup(stack.gw, owner);
    const admin = (await signedInUser(stack, ["api"], { admin: true })).secret;
    expect((await stack.gw.post(url(group.id), { token: admin, json: { member_check: true } })).status).toBe(
      201,
    );
    expect((await stack.gw.get(url(group.id), { token: admin })).status).toBe(200);
  });

  it("serves GET to a read_api token and refuses it the writes", async () => {
    const group = await newGroup(stack.gw, owner);
    await stack.gw.post(url(group.id), { token: owner, json: { member_check: true } });
    const reader = (await signedInUser(stack, ["read_api"], { admin: true })).secret;
    expect((await stack.gw.get(url(group.id), { token: reader })).status).toBe(200);
    expectError(
      await stack.gw.put(url(group.id), { token: reader, json: { member_check: false } }),
      403,
      insufficientScope("api read_api"),
    );
  });
});

describe("a subgroup made after the rule", () => {
  it("starts with a copy of its parent's rule", async () => {
    const group = await newGroup(stack.gw, owner);
    await stack.gw.post(url(group.id), {
      token: owner,
      json: { file_name_regex: "\\.exe$", max_file_size: 7 },
    });
    const sub = await newGroup(stack.gw, owner, { parentId: group.id });
    const res = await stack.gw.get(url(sub.id), { token: owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ file_name_regex: "\\.exe$", max_file_size: 7 });
  });
});
