import { DEVELOPER, GUEST, MAINTAINER, REPORTER } from "@canopy/kit";
import {
  startHarness,
  failure,
  failed,
  status,
  unique,
  ANONYMOUS,
  type Harness,
  type TestUser,
} from "./support";
import {
  addMember,
  pushRuleEvents,
  pushRulesRpc,
  startPlanService,
  type PushRulesRpc,
} from "./push-rules-support";

let h: Harness;
let rpc: PushRulesRpc;
let premium: Awaited<ReturnType<typeof startPlanService>>;
let free: Awaited<ReturnType<typeof startPlanService>>;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  rpc = pushRulesRpc(h.groupsService);
  premium = await startPlanService("premium");
  free = await startPlanService("free");
  owner = await h.newUser();
});
afterAll(async () => {
  await premium.stop();
  await free.stop();
  await h.stop();
});

const ref = (id: number) => ({ id, fullPath: "" });
const NOT_FOUND = failed(status.NOT_FOUND);
const GROUP_NOT_FOUND = failed(status.NOT_FOUND, { resource: "Group" });

/**
 * Every call of the service, for one caller and group, each as the gateway would send it. Made one
 * at a time when run: started together, a rejection could land before anything awaited it.
 */
const everyCall = (r: PushRulesRpc, actor: typeof ANONYMOUS, groupId: number, gatedKeysSent = false) => [
  () => r.authorizePushRules({ actor, group: ref(groupId), gatedKeysSent }),
  () => r.getPushRule({ actor, group: ref(groupId), gatedKeysSent }),
  () => r.createPushRule({ actor, group: ref(groupId), gatedKeysSent, attributes: { memberCheck: true } }),
  () => r.updatePushRule({ actor, group: ref(groupId), gatedKeysSent, attributes: { memberCheck: true } }),
  () => r.deletePushRule({ actor, group: ref(groupId), gatedKeysSent }),
];

async function expectEveryCallFails(calls: (() => Promise<unknown>)[], expected: ReturnType<typeof failed>) {
  for (const call of calls) expect(await failure(call())).toEqual(expected);
}

describe("who may manage a group's push rule", () => {
  it("refuses anonymous callers", async () => {
    const group = await h.newGroup(owner, { visibility: "public" });
    await expectEveryCallFails(everyCall(rpc, ANONYMOUS, group.id), failed(status.UNAUTHENTICATED));
  });

  it("hides a group the caller cannot see: 404 Group Not Found", async () => {
    const stranger = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "private" });
    await expectEveryCallFails(everyCall(rpc, stranger.actor, group.id, true), GROUP_NOT_FOUND);
    await expectEveryCallFails(everyCall(rpc, owner.actor, 99_999_999), GROUP_NOT_FOUND);
  });

  it.each([
    ["a non-member of a public group", 0],
    ["a Guest", GUEST],
    ["a Reporter", REPORTER],
    ["a Developer", DEVELOPER],
  ])("answers a bare 404 (not 403) to %s, even naming a gated key", async (_who, level) => {
    const group = await h.newGroup(owner, { visibility: "public" });
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    const caller = await h.newUser();
    if (level) await addMember(h, group.id, caller.user.id, level);
    await expectEveryCallFails(everyCall(rpc, caller.actor, group.id, true), NOT_FOUND);
    expect(await pushRuleEvents(h, group.id)).toEqual([true]);
  });

  it("lets a Maintainer, an inherited Maintainer and an administrator manage it", async () => {
    const group = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, group.id);
    const maintainer = await h.newUser();
    await addMember(h, group.id, maintainer.user.id, MAINTAINER);
    for (const [actor, id] of [
      [maintainer.actor, group.id],
      [maintainer.actor, sub.id],
      [h.admin, group.id],
    ] as const) {
      await rpc.createPushRule({ actor, group: ref(id), attributes: { preventSecrets: true } });
      await rpc.updatePushRule({ actor, group: ref(id), attributes: { rejectUnsignedCommits: true } });
      expect(await rpc.getPushRule({ actor, group: ref(id), gatedKeysSent: true })).toMatchObject({
        preventSecrets: true,
        rejectUnsignedCommits: true,
      });
      await rpc.deletePushRule({ actor, group: ref(id) });
    }
  });
});

describe("plans", () => {
  it("on premium, answers 403 to any licence-gated key, whatever its value, after the 404s", async () => {
    const group = await h.newGroup(owner, { visibility: "public" });
    await expectEveryCallFails(
      everyCall(premium.rpc, owner.actor, group.id, true),
      failed(status.PERMISSION_DENIED),
    );
    const developer = await h.newUser();
    await addMember(h, group.id, developer.user.id, DEVELOPER);
    await expectEveryCallFails(everyCall(premium.rpc, developer.actor, group.id, true), NOT_FOUND);
    const privateGroup = await h.newGroup(owner);
    await expectEveryCallFails(
      everyCall(premium.rpc, developer.actor, privateGroup.id, true),
      GROUP_NOT_FOUND,
    );
    expect(await pushRuleEvents(h, group.id)).toEqual([]);
  });

  it("on premium, manages the rest of the rule", async () => {
    const group = await h.newGroup(owner);
    const rule = await premium.rpc.createPushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { denyDeleteTag: true, maxFileSize: 50 },
    });
    expect(rule).toMatchObject({ denyDeleteTag: true, maxFileSize: 50 });
    await premium.rpc.deletePushRule({ actor: owner.actor, group: ref(group.id) });
  });

  it("on free, has no push rules at all: a bare 404 even for the Owner and an administrator", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    await expectEveryCallFails(everyCall(free.rpc, owner.actor, group.id), NOT_FOUND);
    await expectEveryCallFails(everyCall(free.rpc, h.admin, group.id), NOT_FOUND);
    const stranger = await h.newUser();
    await expectEveryCallFails(everyCall(free.rpc, stranger.actor, group.id), GROUP_NOT_FOUND);
  });
});

describe("a new subgroup gets a copy of the nearest ancestor's rule", () => {
  it("copies the nearest rule up the tree, once, at creation", async () => {
    const top = await h.newGroup(owner);
    await rpc.createPushRule({
      actor: owner.actor,
      group: ref(top.id),
      attributes: { fileNameRegex: "\\.exe$", rejectUnsignedCommits: true },
    });
    const middle = await h.newGroup(owner, {}, top.id);
    expect(await rpc.getPushRule({ actor: owner.actor, group: ref(middle.id) })).toMatchObject({
      fileNameRegex: "\\.exe$",
      rejectUnsignedCommits: true,
    });
    expect(await pushRuleEvents(h, middle.id)).toEqual([true]);

    await rpc.updatePushRule({ actor: owner.actor, group: ref(middle.id), attributes: { maxFileSize: 3 } });
    const leaf = await h.newGroup(owner, {}, middle.id);
    expect(await rpc.getPushRule({ actor: owner.actor, group: ref(leaf.id) })).toMatchObject({
      fileNameRegex: "\\.exe$",
      maxFileSize: 3,
    });

    // A copy, not a link: later edits up the tree do not reach existing subgroups.
    await rpc.updatePushRule({ actor: owner.actor, group: ref(top.id), attributes: { fileNameRegex: "x" } });
    expect((await rpc.getPushRule({ actor: owner.actor, group: ref(middle.id) })).fileNameRegex).toBe(
      "\\.exe$",
    );
  });

  it("skips an ancestor without a rule and gives nothing when none has one", async () => {
    const top = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(top.id), attributes: { memberCheck: true } });
    const middle = await h.newGroup(owner, {}, top.id);
    await rpc.deletePushRule({ actor: owner.actor, group: ref(middle.id) });
    const leaf = await h.newGroup(owner, {}, middle.id);
    expect((await rpc.getPushRule({ actor: owner.actor, group: ref(leaf.id) })).memberCheck).toBe(true);

    const bare = await h.newGroup(owner);
    const bareSub = await h.newGroup(owner, {}, bare.id);
    expect(await failure(rpc.getPushRule({ actor: owner.actor, group: ref(bareSub.id) }))).toEqual(NOT_FOUND);
  });

  it("copies nothing on free", async () => {
    const top = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(top.id), attributes: { memberCheck: true } });
    const path = unique("g_");
    const sub = await free.createGroup({
      actor: owner.actor,
      attributes: { name: path, path },
      parentId: top.id,
    });
    const { rows } = await h.db.query("SELECT 1 FROM push_rules WHERE namespace_id = $1", [sub.group!.id]);
    expect(rows).toEqual([]);
  });
});
