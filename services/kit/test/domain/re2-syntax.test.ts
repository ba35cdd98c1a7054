import { re2SyntaxError } from "../../src/gitlab/re2-syntax";

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
