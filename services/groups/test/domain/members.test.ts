import { accessLevelErrors, canReadMembers, isLastOwner, memberErrors } from "../../src/domain/members";

describe("member rules", () => {
  it("takes 10..50 everywhere and 5 only with the plan's minimal access, on a top-level group", () => {
    for (const level of [10, 20, 30, 40, 50])
      expect(accessLevelErrors(level, { minimalAccess: false, topLevel: false })).toEqual([]);
    expect(accessLevelErrors(5, { minimalAccess: false, topLevel: true })).toEqual([
      "is not included in the list",
    ]);
    expect(accessLevelErrors(5, { minimalAccess: true, topLevel: true })).toEqual([]);
    expect(accessLevelErrors(5, { minimalAccess: true, topLevel: false })).toEqual([
      "is not included in the list",
      "supported on top level groups only",
    ]);
    for (const level of [0, 15, 60, -10])
      expect(accessLevelErrors(level, { minimalAccess: true, topLevel: true })).toEqual([
        "is not included in the list",
      ]);
  });

  it("collects level, inherited and date errors by attribute", () => {
    expect(
      memberErrors({
        accessLevel: 20,
        expiresAt: "2000-01-01",
        minimalAccess: true,
        topLevel: false,
        inherited: { accessLevel: 40, groupName: "Top" },
        today: "2024-01-01",
      }),
    ).toEqual({
      access_level: ["should be greater than or equal to Maintainer inherited membership from group Top"],
      expires_at: ["cannot be a date in the past"],
    });
  });

  it("reads members unless the group is private and the caller has no access; guards the last Owner", () => {
    expect(canReadMembers(0, 0)).toBe(false);
    expect(canReadMembers(0, 10)).toBe(true);
    expect(canReadMembers(10, 0)).toBe(true);
    expect(isLastOwner({ accessLevel: 50 }, 0)).toBe(true);
    expect(isLastOwner({ accessLevel: 50 }, 1)).toBe(false);
    expect(isLastOwner({ accessLevel: 40 }, 0)).toBe(false);
  });
});
