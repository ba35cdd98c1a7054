/**
 * Push rules on the lower plans: a premium and a free groups service over the stack's database,
 * each behind a gateway on the same plan (the plan is one per deployment).
 */
import { startTestService, type TestService } from "@canopy/kit/testing";
import { groupsServiceDefinition, type GroupsConfig } from "@canopy/groups";
import { expectError, FORBIDDEN, signedInUser, startStack, type Gateway, type Stack } from "./support";
import { memberOf, newGroup, pushRuleRow } from "./group-push-rules-support";

let stack: Stack;
const services: TestService<GroupsConfig, unknown>[] = [];
let premium: Gateway;
let free: Gateway;
let owner: string;

async function gatewayOn(plan: "premium" | "free") {
  const groups = await startTestService(groupsServiceDefinition, { env: { CANOPY_PLAN: plan } });
  services.push(groups);
  return stack.addGateway({ CANOPY_PLAN: plan, CANOPY_GROUPS_ADDRESS: groups.address });
}

beforeAll(async () => {
  stack = await startStack();
  premium = await gatewayOn("premium");
  free = await gatewayOn("free");
  owner = (await signedInUser(stack)).secret;
});
afterAll(async () => {
  await stack.stop();
  for (const s of services) await s.stop();
});

const url = (id: number) => `/api/v4/groups/${id}/push_rule`;
const NOT_FOUND = { message: "404 Not Found" };
const GATED = [
  "commit_committer_check",
  "commit_committer_name_check",
  "reject_unsigned_commits",
  "reject_non_dco_commits",
];

describe("premium", () => {
  it("manages the rule and leaves the licence-gated keys out of every answer", async () => {
    const group = await newGroup(premium, owner);
    const created = await premium.post(url(group.id), { token: owner, json: { deny_delete_tag: true } });
    expect(created.status).toBe(201);
    for (const body of [created.body, (await premium.get(url(group.id), { token: owner })).body])
      for (const key of GATED) expect(body).not.toHaveProperty(key);
    expect(created.body).toMatchObject({ deny_delete_tag: true, max_file_size: 0 });
  });

  it.each(GATED)("answers 403 to %s merely being present, even false, on every route", async (key) => {
    const group = await newGroup(premium, owner);
    await premium.post(url(group.id), { token: owner, json: { member_check: true } });
    expectError(await premium.post(url(group.id), { token: owner, json: { [key]: false } }), 403, FORBIDDEN);
    expectError(
      await premium.put(url(group.id), { token: owner, json: { [key]: false, member_check: false } }),
      403,
      FORBIDDEN,
    );
    expectError(
      await premium.put(url(group.id), { token: owner, json: { [key]: "not a boolean" } }),
      403,
      FORBIDDEN,
    );
    expectError(await premium.get(`${url(group.id)}?${key}=false`, { token: owner }), 403, FORBIDDEN);
    expectError(await premium.delete(`${url(group.id)}?${key}=false`, { token: owner }), 403, FORBIDDEN);
    expect((await pushRuleRow(stack, group.id))!.member_check).toBe(true);
  });

  it("keeps GitLab's order: an invisible group and a Developer get their 404s before the 403", async () => {
    const group = await newGroup(premium, owner, { visibility: "public" });
    const developer = await memberOf(stack, group.id, 30);
    expectError(
      await premium.post(url(group.id), { token: developer.secret, json: { reject_unsigned_commits: true } }),
      404,
      NOT_FOUND,
    );
    const hidden = await newGroup(premium, owner);
    expectError(
      await premium.post(url(hidden.id), {
        token: developer.secret,
        json: { reject_unsigned_commits: true },
      }),
      404,
      { message: "404 Group Not Found" },
    );
  });
});

describe("free", () => {
  it("has no push rules: 404 Not Found even for the Owner, after 404 Group Not Found", async () => {
    const group = await newGroup(free, owner);
    for (const method of ["GET", "POST", "PUT", "DELETE"] as const)
      expectError(
        await free.request(method, url(group.id), {
          token: owner,
          ...(method === "GET" ? {} : { json: { member_check: true } }),
        }),
        404,
        NOT_FOUND,
      );
    const stranger = (await signedInUser(stack)).secret;
    expectError(await free.get(url(group.id), { token: stranger }), 404, { message: "404 Group Not Found" });
    expect(await pushRuleRow(stack, group.id)).toBeUndefined();
  });
});
