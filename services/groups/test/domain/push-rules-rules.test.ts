import {
  applyChanges,
  EMPTY_PUSH_RULE,
  MAX_FILE_SIZE,
  pushRuleErrors,
  re2SyntaxError,
} from "../../src/domain/push-rules";

describe("re2SyntaxError: RE2's verdict, in RE2's own words", () => {
  it.each([
    "^[A-Za-z0-9.]+@gitlab.com$",
    "(feature|hotfix)\\/.*",
    "(?i)^fix",
    "\\d{1,3}\\s\\bword\\b",
    "(?P<name>x)(?<other>y)",
    "\\p{Greek}+",
    "(a+)+$", // catastrophic for a backtracking engine, linear for RE2
    "",
    "山田|🚀",
  ])("accepts %j", (pattern) => {
    expect(re2SyntaxError(pattern)).toBeUndefined();
  });

  it.each([
    ["(?=lookahead)", "invalid perl operator: (?="],
    ["(?!x)", "invalid perl operator: (?!"],
    // RE2 reads "(?<" as a named group since (?<name>) is allowed: a lookbehind is a bad name.
    ["(?<=x)y", "invalid named capture group: (?<=x)y"],
    ["(a)\\1", "invalid escape sequence: \\1"],
    ["(abc", "missing ): (abc"],
    ["abc)", "unexpected ): abc)"],
    ["[a-", "missing ]: [a-"],
    ["[z-a]", "invalid character class range: z-a"],
    ["*a", "no argument for repetition operator: *"],
    ["a{2,1}", "invalid repetition size: {2,1}"],
    ["a{1001}", "invalid repetition size: {1001}"],
    ["a**", "bad repetition operator: **"],
    ["abc\\", "trailing \\"],
    ["(?P<n>a)(?P<n>b)", "invalid named capture group: n"],
    ["a++", "bad repetition operator: ++"],
  ])("refuses %j: %s", (pattern, message) => {
    expect(re2SyntaxError(pattern)).toBe(message);
  });

  it("refuses repetitions nested past 1000 and patterns too deep to compile", () => {
    expect(re2SyntaxError("(((a{10}){10}){10}){10}")).toBe("invalid repetition size: {10}");
    expect(re2SyntaxError("(".repeat(1001) + ")".repeat(1001))).toBe("pattern too large - compile failed");
  });
});

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
