import { GROUPS_EVENTS } from "@canopy/protos";
import { startHarness, failure, failed, status, type Harness, type TestUser } from "./support";
import { pushRuleEvents, pushRulesRpc, type PushRulesRpc } from "./push-rules-support";

let h: Harness;
let rpc: PushRulesRpc;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  rpc = pushRulesRpc(h.groupsService);
  owner = await h.newUser();
});
afterAll(() => h.stop());

const ref = (id: number) => ({ id, fullPath: "" });
const FULL = {
  commitMessageRegex: "^(feat|fix): ",
  commitMessageNegativeRegex: "ssh\\:\\/\\/",
  branchNameRegex: "(feature|hotfix)\\/.*",
  authorEmailRegex: "@example\\.com$",
  fileNameRegex: "(jar|exe)$",
  denyDeleteTag: true,
  memberCheck: true,
  preventSecrets: true,
  maxFileSize: 100,
  commitCommitterCheck: true,
  commitCommitterNameCheck: true,
  rejectUnsignedCommits: true,
  rejectNonDcoCommits: true,
};

describe("CreatePushRule", () => {
  it("creates a rule with only the attributes sent, the rest at GitLab's defaults", async () => {
    const group = await h.newGroup(owner);
    const before = Date.now();
    const rule = await rpc.createPushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { maxFileSize: 20, commitMessageRegex: "JIRA-\\d+" },
    });
    expect(rule).toMatchObject({
      commitMessageRegex: "JIRA-\\d+",
      maxFileSize: 20,
      denyDeleteTag: false,
      memberCheck: false,
      preventSecrets: false,
      commitCommitterCheck: false,
      commitCommitterNameCheck: false,
      rejectUnsignedCommits: false,
      rejectNonDcoCommits: false,
    });
    expect(rule.branchNameRegex).toBeUndefined();
    expect(rule.commitMessageNegativeRegex).toBeUndefined();
    expect(rule.id).toBeGreaterThan(0);
    expect(rule.createdAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await rpc.getPushRule({ actor: owner.actor, group: ref(group.id) })).toEqual(rule);
    expect(await pushRuleEvents(h, group.id)).toEqual([true]);
  });

  it("stores every attribute, the licence-gated ones included", async () => {
    const group = await h.newGroup(owner);
    const rule = await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: FULL });
    expect(rule).toMatchObject(FULL);
  });

  it("answers 422 'Group push rule exists, try updating' to a second create, and changes nothing", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { maxFileSize: 5 } });
    expect(
      await failure(
        rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { maxFileSize: 7 } }),
      ),
    ).toEqual(
      failed(status.ALREADY_EXISTS, {
        httpStatus: 422,
        publicMessage: "Group push rule exists, try updating",
      }),
    );
    // The existing rule wins over validation errors too (GitLab checks it first).
    expect(
      (
        await failure(
          rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { maxFileSize: -1 } }),
        )
      ).httpStatus,
    ).toBe(422);
    expect((await rpc.getPushRule({ actor: owner.actor, group: ref(group.id) })).maxFileSize).toBe(5);
    expect(await pushRuleEvents(h, group.id)).toEqual([true]);
  });

  it("lets only one of two concurrent creates win", async () => {
    const group = await h.newGroup(owner);
    const results = await Promise.allSettled(
      [1, 2].map((n) =>
        rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { maxFileSize: n } }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const { rows } = await h.db.query("SELECT count(*)::int AS n FROM push_rules WHERE namespace_id = $1", [
      group.id,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe("UpdatePushRule", () => {
  it("changes only the attributes sent and keeps created_at", async () => {
    const group = await h.newGroup(owner);
    const created = await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: FULL });
    const updated = await rpc.updatePushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { branchNameRegex: "^main$", denyDeleteTag: false },
    });
    expect(updated).toMatchObject({ ...FULL, branchNameRegex: "^main$", denyDeleteTag: false });
    expect(updated.id).toBe(created.id);
    expect(updated.createdAt).toEqual(created.createdAt);
    expect(updated.updatedAt!.getTime()).toBeGreaterThanOrEqual(created.updatedAt!.getTime());
    expect(await pushRuleEvents(h, group.id)).toEqual([true, true]);
  });

  it("stores false of a key that falls back to the instance rule as null, and reads it as false", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: FULL });
    const updated = await rpc.updatePushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: {
        commitCommitterCheck: false,
        commitCommitterNameCheck: false,
        rejectUnsignedCommits: false,
        rejectNonDcoCommits: false,
      },
    });
    expect(updated).toMatchObject({
      commitCommitterCheck: false,
      commitCommitterNameCheck: false,
      rejectUnsignedCommits: false,
      rejectNonDcoCommits: false,
    });
    const { rows } = await h.db.query(
      `SELECT commit_committer_check, commit_committer_name_check, reject_unsigned_commits, reject_non_dco_commits
         FROM push_rules WHERE namespace_id = $1`,
      [group.id],
    );
    // commit_committer_name_check has no instance fallback in GitLab: its false is stored as false.
    expect(rows[0]).toEqual({
      commit_committer_check: null,
      commit_committer_name_check: false,
      reject_unsigned_commits: null,
      reject_non_dco_commits: null,
    });
  });

  it("answers 404 'Push rule' when the group has none, before validating", async () => {
    const group = await h.newGroup(owner);
    expect(
      await failure(
        rpc.updatePushRule({ actor: owner.actor, group: ref(group.id), attributes: { maxFileSize: -5 } }),
      ),
    ).toEqual(failed(status.NOT_FOUND, { resource: "Push rule" }));
    expect(await pushRuleEvents(h, group.id)).toEqual([]);
  });

  it("refuses an invalid change and keeps the rule as it was", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { fileNameRegex: "a" },
    });
    expect(
      await failure(
        rpc.updatePushRule({
          actor: owner.actor,
          group: ref(group.id),
          attributes: { fileNameRegex: "(?!x)", maxFileSize: 3 },
        }),
      ),
    ).toEqual(
      failed(status.INVALID_ARGUMENT, {
        fieldErrors: { file_name_regex: ["not valid RE2 syntax: invalid perl operator: (?!"] },
      }),
    );
    expect(await rpc.getPushRule({ actor: owner.actor, group: ref(group.id) })).toMatchObject({
      fileNameRegex: "a",
      maxFileSize: 0,
    });
  });
});

describe("GetPushRule and DeletePushRule", () => {
  it("answers a bare 404 for a group without a rule", async () => {
    const group = await h.newGroup(owner);
    expect(await failure(rpc.getPushRule({ actor: owner.actor, group: ref(group.id) }))).toEqual(
      failed(status.NOT_FOUND),
    );
    expect(await failure(rpc.deletePushRule({ actor: owner.actor, group: ref(group.id) }))).toEqual(
      failed(status.NOT_FOUND),
    );
  });

  it("finds the group by full path too", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    const rule = await rpc.getPushRule({
      actor: owner.actor,
      group: { id: 0, fullPath: group.fullPath.toUpperCase() },
    });
    expect(rule.memberCheck).toBe(true);
  });

  it("deletes the rule and records that it is gone", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    await rpc.deletePushRule({ actor: owner.actor, group: ref(group.id) });
    expect((await failure(rpc.getPushRule({ actor: owner.actor, group: ref(group.id) }))).code).toBe(
      status.NOT_FOUND,
    );
    expect(await pushRuleEvents(h, group.id)).toEqual([true, false]);
    // A new one can then be created.
    await rpc.createPushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { memberCheck: false },
    });
  });

  it("honours If-Unmodified-Since: 412 when the rule changed after it, deletes when not", async () => {
    const group = await h.newGroup(owner);
    const rule = await rpc.createPushRule({
      actor: owner.actor,
      group: ref(group.id),
      attributes: { memberCheck: true },
    });
    const earlier = new Date(rule.updatedAt!.getTime() - 1000);
    expect(
      await failure(
        rpc.deletePushRule({ actor: owner.actor, group: ref(group.id), ifUnmodifiedSince: earlier }),
      ),
    ).toEqual(
      failed(status.FAILED_PRECONDITION, { httpStatus: 412, publicMessage: "412 Precondition Failed" }),
    );
    expect(await pushRuleEvents(h, group.id)).toEqual([true]);
    await rpc.deletePushRule({
      actor: owner.actor,
      group: ref(group.id),
      ifUnmodifiedSince: new Date(rule.updatedAt!.getTime() + 1000),
    });
    expect(await pushRuleEvents(h, group.id)).toEqual([true, false]);
  });

  it("compares If-Unmodified-Since at the database's precision, as GitLab compares at Ruby's", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    await h.db.query(
      "UPDATE push_rules SET updated_at = '2020-01-01 00:00:00.0005+00' WHERE namespace_id = $1",
      [group.id],
    );
    const second = new Date("2020-01-01T00:00:00Z");
    expect(
      (
        await failure(
          rpc.deletePushRule({ actor: owner.actor, group: ref(group.id), ifUnmodifiedSince: second }),
        )
      ).httpStatus,
    ).toBe(412);
    await rpc.deletePushRule({
      actor: owner.actor,
      group: ref(group.id),
      ifUnmodifiedSince: new Date("2020-01-01T00:00:01Z"),
    });
  });

  it("goes when its group goes", async () => {
    const group = await h.newGroup(owner);
    await rpc.createPushRule({ actor: owner.actor, group: ref(group.id), attributes: { memberCheck: true } });
    await h.db.query("DELETE FROM namespaces WHERE id = $1", [group.id]);
    const { rows } = await h.db.query("SELECT 1 FROM push_rules WHERE namespace_id = $1", [group.id]);
    expect(rows).toEqual([]);
  });
});

it("names the event kind it records", () => {
  expect(GROUPS_EVENTS.pushRuleChanged.subject).toBe("canopy.groups.push_rule.changed");
});
