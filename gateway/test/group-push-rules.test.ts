import { expectError, expectJsonHeaders, signedInUser, startStack, ISO_TIME, type Stack } from "./support";
import { NOT_FOUND, newGroup, pushRuleRow, url } from "./group-push-rules-support";

let stack: Stack;
let owner: string;
beforeAll(async () => {
  stack = await startStack();
  owner = (await signedInUser(stack)).secret;
});
afterAll(() => stack.stop());

const AT_LEAST_ONE = {
  error:
    "deny_delete_tag, member_check, prevent_secrets, commit_message_regex, commit_message_negative_regex, " +
    "branch_name_regex, author_email_regex, file_name_regex, max_file_size, commit_committer_check, " +
    "commit_committer_name_check, reject_unsigned_commits, reject_non_dco_commits are missing, " +
    "at least one parameter must be provided",
};
const FULL = {
  commit_message_regex: "^(feat|fix): ",
  commit_message_negative_regex: "ssh\\:\\/\\/",
  branch_name_regex: "(feature|hotfix)\\/.*",
  author_email_regex: "@example\\.com$",
  file_name_regex: "(jar|exe)$",
  deny_delete_tag: true,
  member_check: true,
  prevent_secrets: true,
  max_file_size: 100,
  commit_committer_check: true,
  commit_committer_name_check: true,
  reject_unsigned_commits: true,
  reject_non_dco_commits: true,
};

describe("the push rule's life over HTTP", () => {
  it("creates (201), reads (200), updates only what is sent (200) and deletes (204)", async () => {
    const group = await newGroup(stack.gw, owner);
    const created = await stack.gw.post(url(group.id), {
      token: owner,
      json: { max_file_size: 20, deny_delete_tag: true },
    });
    expect(created.status).toBe(201);
    expectJsonHeaders(created);
    const body = created.body as Record<string, unknown>;
    // Every key, in GitLab's order; no group_id.
    expect(Object.keys(body)).toEqual([
      "id",
      "created_at",
      "commit_message_regex",
      "commit_message_negative_regex",
      "branch_name_regex",
      "author_email_regex",
      "file_name_regex",
      "deny_delete_tag",
      "member_check",
      "prevent_secrets",
      "max_file_size",
      "commit_committer_check",
      "commit_committer_name_check",
      "reject_unsigned_commits",
      "reject_non_dco_commits",
    ]);
    expect(body).toEqual({
      id: expect.any(Number),
      created_at: ISO_TIME,
      commit_message_regex: null,
      commit_message_negative_regex: null,
      branch_name_regex: null,
      author_email_regex: null,
      file_name_regex: null,
      deny_delete_tag: true,
      member_check: false,
      prevent_secrets: false,
      max_file_size: 20,
      commit_committer_check: false,
      commit_committer_name_check: false,
      reject_unsigned_commits: false,
      reject_non_dco_commits: false,
    });

    const read = await stack.gw.get(url(encodeURIComponent(group.full_path)), { token: owner });
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body });

    const updated = await stack.gw.put(url(group.id), {
      token: owner,
      form: { branch_name_regex: "^main$", reject_unsigned_commits: "true" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...body, branch_name_regex: "^main$", reject_unsigned_commits: true });

    const deleted = await stack.gw.delete(url(group.id), { token: owner });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(await pushRuleRow(stack, group.id)).toBeUndefined();
    expectError(await stack.gw.get(url(group.id), { token: owner }), 404, NOT_FOUND);
  });

  it("takes every attribute", async () => {
    const group = await newGroup(stack.gw, owner);
    const created = await stack.gw.post(url(group.id), { token: owner, json: FULL });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(FULL);
  });

  it("answers GitLab's errors for a missing or existing rule", async () => {
    const group = await newGroup(stack.gw, owner);
    expectError(await stack.gw.get(url(group.id), { token: owner }), 404, NOT_FOUND);
    expectError(await stack.gw.delete(url(group.id), { token: owner }), 404, NOT_FOUND);
    expectError(await stack.gw.put(url(group.id), { token: owner, json: { member_check: true } }), 404, {
      message: "404 Push rule Not Found",
    });
    expect(await pushRuleRow(stack, group.id)).toBeUndefined();
    await stack.gw.post(url(group.id), { token: owner, json: { member_check: true } });
    expectError(await stack.gw.post(url(group.id), { token: owner, json: { member_check: false } }), 422, {
      message: "Group push rule exists, try updating",
    });
    expect((await pushRuleRow(stack, group.id))!.member_check).toBe(true);
  });

  it("honours If-Unmodified-Since on DELETE", async () => {
    const group = await newGroup(stack.gw, owner);
    await stack.gw.post(url(group.id), { token: owner, json: { member_check: true } });
    expectError(
      await stack.gw.delete(url(group.id), {
        token: owner,
        headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
      }),
      412,
      { message: "412 Precondition Failed" },
    );
    expect(await pushRuleRow(stack, group.id)).toBeDefined();
    // A header that cannot be read is ignored, as GitLab ignores it.
    const res = await stack.gw.delete(url(group.id), {
      token: owner,
      headers: { "If-Unmodified-Since": "not a date" },
    });
    expect(res.status).toBe(204);
  });
});

describe("parameters", () => {
  it("needs at least one attribute (null counts as not sent)", async () => {
    const group = await newGroup(stack.gw, owner);
    expectError(await stack.gw.post(url(group.id), { token: owner, json: {} }), 400, AT_LEAST_ONE);
    expectError(
      await stack.gw.post(url(group.id), { token: owner, json: { member_check: null, unknown: 1 } }),
      400,
      AT_LEAST_ONE,
    );
    await stack.gw.post(url(group.id), { token: owner, json: { member_check: true } });
    expectError(await stack.gw.put(url(group.id), { token: owner, json: {} }), 400, AT_LEAST_ONE);
  });

  it("refuses wrong types with Grape's messages, and changes nothing", async () => {
    const group = await newGroup(stack.gw, owner);
    expectError(
      await stack.gw.post(url(group.id), {
        token: owner,
        json: { deny_delete_tag: "maybe", max_file_size: "ten", branch_name_regex: ["a"] },
      }),
      400,
      { error: "deny_delete_tag is invalid, branch_name_regex is invalid, max_file_size is invalid" },
    );
    expectError(
      await stack.gw.post(url(group.id), { token: owner, json: { file_name_regex: "a\u0000b" } }),
      400,
      {
        error: "file_name_regex is invalid",
      },
    );
    expect(await pushRuleRow(stack, group.id)).toBeUndefined();
  });

  it("validates patterns as RE2 and the limits of the model: 400 with a field hash", async () => {
    const group = await newGroup(stack.gw, owner);
    expectError(
      await stack.gw.post(url(group.id), {
        token: owner,
        json: {
          max_file_size: -1,
          commit_message_regex: "(?=x)",
          author_email_regex: "(a)\\1",
          branch_name_regex: "a".repeat(512),
          commit_message_negative_regex: "b".repeat(2048),
        },
      }),
      400,
      {
        message: {
          max_file_size: ["must be greater than or equal to 0"],
          commit_message_regex: ["not valid RE2 syntax: invalid perl operator: (?="],
          author_email_regex: ["not valid RE2 syntax: invalid escape sequence: \\1"],
          branch_name_regex: ["is too long (maximum is 511 characters)"],
          commit_message_negative_regex: ["is too long (maximum is 2047 characters)"],
        },
      },
    );
    expectError(
      await stack.gw.post(url(group.id), { token: owner, json: { max_file_size: 2147483648 } }),
      400,
      {
        message: { max_file_size: ["must be less than or equal to 2147483647"] },
      },
    );
    expect(await pushRuleRow(stack, group.id)).toBeUndefined();
    const atLimits = await stack.gw.post(url(group.id), {
      token: owner,
      json: {
        max_file_size: 2147483647,
        branch_name_regex: "a".repeat(511),
        commit_message_negative_regex: "(a+)+$",
      },
    });
    expect(atLimits.status).toBe(201);
  });
});
