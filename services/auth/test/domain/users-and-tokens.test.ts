import { expiryInstant, isExpired, tokenDigest } from "../../src/domain/tokens";
import { validateUser } from "../../src/domain/users";

const valid = { username: "jane_doe", email: "jane@example.com", name: "Jane", password: "s3cret-passw0rd" };

describe("validateUser (GitLab's model validations)", () => {
  it("finds nothing wrong with a valid new user", () => {
    expect(validateUser(valid, true)).toEqual({});
  });

  it("requires username, email and name on creation, but not on update", () => {
    expect(validateUser({}, true)).toEqual({
      username: ["can't be blank"],
      email: ["can't be blank"],
      name: ["can't be blank"],
    });
    expect(validateUser({}, false)).toEqual({});
  });

  it("refuses reserved and malformed usernames with GitLab's messages", () => {
    expect(validateUser({ ...valid, username: "admin" }, true)).toEqual({
      username: ["admin is a reserved name"],
    });
    expect(validateUser({ ...valid, username: "x.git" }, true).username?.[0]).toMatch(/^can contain only/);
    expect(validateUser({ ...valid, username: "-x" }, true).username?.[0]).toMatch(/^can contain only/);
  });

  it("bounds passwords and refuses NUL bytes in any field", () => {
    expect(validateUser({ ...valid, password: "short" }, true)).toEqual({
      password: ["is too short (minimum is 8 characters)"],
    });
    expect(validateUser({ ...valid, jobTitle: "a\u0000b" }, true)).toEqual({
      job_title: ["cannot contain null bytes"],
    });
  });
});

describe("token rules", () => {
  const now = new Date("2026-11-21T23:59:59Z");

  it("counts a token expiring today as expired (GitLab's rule), tomorrow's as live", () => {
    expect(isExpired("2026-11-21", now)).toBe(true);
    expect(isExpired("2026-11-22", now)).toBe(false);
    expect(isExpired(null, now)).toBe(false);
    expect(expiryInstant("2026-11-22").toISOString()).toBe("2026-11-22T00:00:00.000Z");
  });

  it("keys token digests: the same token under another key digests differently", () => {
    const a = tokenDigest(Buffer.alloc(32, 1), "glpat-x");
    expect(a).toBe(tokenDigest(Buffer.alloc(32, 1), "glpat-x"));
    expect(a).not.toBe(tokenDigest(Buffer.alloc(32, 2), "glpat-x"));
    expect(a).not.toContain("glpat-x");
  });
});
