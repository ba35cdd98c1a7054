import { applyChanges, EMPTY_PUSH_RULE, MAX_FILE_SIZE, pushRuleErrors } from "../../src/domain/push-rules";

describe("pushRuleErrors: the model's validations", () => {
  const rule = (changes: Partial<typeof EMPTY_PUSH_RULE>) => ({ ...EMPTY_PUSH_RULE, ...changes });

  it("finds nothing wrong with an empty rule or one at every limit", () => {
    expect(pushRuleErrors(EMPTY_PUSH_RULE)).toEqual({});
    expect(
      pushRuleErrors(
        rule({
          commit_message_regex: "a".repeat(511),
          author_email_regex: "b".repeat(511),
          file_name_regex: "c".repeat(511),
          branch_name_regex: "d".repeat(511),
          commit_message_negative_regex: "e".repeat(2047),
          max_file_size: MAX_FILE_SIZE,
        }),
      ),
    ).toEqual({});
  });

  it("limits the four short patterns to 511 characters and the negative one to 2047", () => {
    expect(
      pushRuleErrors(
        rule({ branch_name_regex: "a".repeat(512), commit_message_negative_regex: "b".repeat(2048) }),
      ),
    ).toEqual({
      branch_name_regex: ["is too long (maximum is 511 characters)"],
      commit_message_negative_regex: ["is too long (maximum is 2047 characters)"],
    });
  });

  it("counts characters, not UTF-16 units", () => {
    expect(pushRuleErrors(rule({ file_name_regex: "🚀".repeat(511) }))).toEqual({});
    expect(pushRuleErrors(rule({ file_name_regex: "🚀".repeat(512) }))).toEqual({
      file_name_regex: ["is too long (maximum is 511 characters)"],
    });
  });

  it("keeps max_file_size within 0..2147483647", () => {
    expect(pushRuleErrors(rule({ max_file_size: -1 }))).toEqual({
      max_file_size: ["must be greater than or equal to 0"],
    });
    expect(pushRuleErrors(rule({ max_file_size: MAX_FILE_SIZE + 1 }))).toEqual({
      max_file_size: ["must be less than or equal to 2147483647"],
    });
  });

  it("orders errors as GitLab's errors hash: size, then syntax per field, then lengths", () => {
    const errors = pushRuleErrors(
      rule({
        commit_message_negative_regex: "(?=x)",
        branch_name_regex: "(" + "a".repeat(600),
        commit_message_regex: "ok",
        max_file_size: -3,
      }),
    );
    expect(Object.keys(errors)).toEqual([
      "max_file_size",
      "branch_name_regex",
      "commit_message_negative_regex",
    ]);
    expect(errors.branch_name_regex).toEqual([
      `not valid RE2 syntax: missing ): (${"a".repeat(600)}`,
      "is too long (maximum is 511 characters)",
    ]);
  });
});

describe("applyChanges", () => {
  it("changes only what was sent", () => {
    const current = { ...EMPTY_PUSH_RULE, member_check: true, file_name_regex: "x" };
    expect(applyChanges(current, { max_file_size: 9, file_name_regex: undefined })).toEqual({
      ...current,
      max_file_size: 9,
    });
  });

  it("stores false of the three keys with an instance fallback as null, true as true", () => {
    const next = applyChanges(EMPTY_PUSH_RULE, {
      commit_committer_check: false,
      reject_unsigned_commits: false,
      reject_non_dco_commits: true,
      commit_committer_name_check: false,
    });
    expect(next).toMatchObject({
      commit_committer_check: null,
      reject_unsigned_commits: null,
      reject_non_dco_commits: true,
      commit_committer_name_check: false,
    });
  });
});
